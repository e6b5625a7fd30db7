// Secrets are never echoed: maskSecrets renders any text that may hold a locator (a store URL, a libpq
// keyword/value conninfo, a provider base URL) or a known secret (a password, an API key) for display,
// with every secret replaced by ***. It is the one masking function: store locators in summaries,
// reports and errors, provider settings and HTTP error bodies all go through it.

/** What a masked secret reads as. */
export const SECRET_MASK = '***';

/**
 * A parameter name that names a secret, in a query string (`?token=…`) or a conninfo
 * (`password=…`): password, sslpassword, passwd, pwd, secret, token, access_token, api_key, apikey,
 * key, sig, signature, credential, auth, bearer… anywhere in the name (`inputTokens` and `author`
 * too). Masking a harmless value too is the safe mistake. Every strict secret name is one.
 */
const SECRET_NAME = /(?:pass(?:word)?|passwd|pwd|secret|token|key|sig(?:nature)?|credential|auth|bearer)/i;

/** Whether a parameter or property name names a secret (SECRET_NAME: password, token, api_key, …). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * How a strict secret name ends (see isStrictSecretName), in any case, a number and separators
 * after it allowed (`token_2`, `password_`): with password, passwd, passphrase, secret, token (not
 * `tokens`) or credential(s), glued onto its last word or not (`sslpassword`, `PGPASSWORD`,
 * `authtoken`, `clientSecret`): a strict name then; or with pwd, auth, bearer or key (group 1),
 * which make one only as STRICT_KEY_WORDS says.
 */
const STRICT_SECRET_ENDING =
  /(?:pass(?:word|wd|phrase)|secret|token|credentials?|(pwd|auth|bearer|key))(?:[^a-z0-9]*[0-9]+)?[^a-z0-9]*$/i;
/**
 * The name's words joined by `_` (lower case) end with the word pwd, auth or bearer; or with api,
 * access, private, secret, signing, encryption or master then key (`api_key`, `x-api-key`,
 * `aws_secret_access_key`, `privateKey`), or with a word that ends with apikey, accesskey,
 * privatekey or secretkey (`apikey`, `OPENAIAPIKEY`); a number may follow. Not `attemptKey`,
 * `idempotencyKey`, `author`, `authorization`, `authority`.
 */
const STRICT_KEY_WORDS =
  /(?:^|_)(?:pwd|auth|bearer|[a-z0-9]*(?:apikey|accesskey|privatekey|secretkey)|(?:api|access|private|secret|signing|encryption|master)_key)(?:_?[0-9]+)?$/;

/**
 * Whether a name is a strict secret name (STRICT_SECRET_ENDING, then STRICT_KEY_WORDS over the name
 * split into words at `_`, `-`, `.`, any other mark, and camelCase: `apiKey`, `APIKey`). Every one is
 * a loose SECRET_NAME too. For the rules that would mask an ordinary field under a loose name
 * (SECRET_NAME matches `attemptKey`, `outputTokens`, `author`): a `NAME: value` in free text, a
 * quoted JSON member, a document's key. Not `passwordFile`, `pass`, `secretName`, `maxTokens`.
 */
export function isStrictSecretName(name: string): boolean {
  const ending = STRICT_SECRET_ENDING.exec(name);
  if (ending === null) return false;
  if (ending[1] === undefined) return true;
  let strict = keyWordNames.get(name);
  if (strict === undefined) {
    const words = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/_+$/, '');
    strict = STRICT_KEY_WORDS.test(words);
    if (keyWordNames.size >= KEY_WORD_NAMES_KEPT) keyWordNames.clear();
    keyWordNames.set(name, strict);
  }
  return strict;
}

/**
 * The names ending with pwd, auth, bearer or key judged by their words so far, and what they were
 * judged (a document's keys repeat: `comparableKey` in every row of a report), at most KEY_WORD_NAMES_KEPT.
 */
const keyWordNames = new Map<string, boolean>();
const KEY_WORD_NAMES_KEPT = 1024;

/**
 * `scheme://user:password@` — the password runs to the authority's last `@` (as a URL parser reads
 * it), a `#` in it included: a parser ends the authority at a `#`, but a person who wrote
 * `u:p#ss@h` meant it as the password (as secretsIn takes it). userinfoPasswords reads it so too.
 */
const USERINFO_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"<>`]*:([^\s/?'"<>`]*)@/dgi;
/** `https://token@` — a lone userinfo of a web URL is a credential (a postgres user name is not). */
const WEB_USERINFO = /\b(?:https?|wss?):\/\/([^\s/?#@:'"<>`]+)@/dgi;
/** `name=` (a parameter of a query string, a conninfo, a shell-ish line, a message): the name, then `=`. */
const NAME_EQUALS = /(?<![\w.-])([\w.-]+)\s*=\s*/g;
/** A member's value that is no string: a number, `true`, … (an object or array opens with `{` or `[`). */
const MEMBER_SCALAR = /[^\s,}\]{[][^\s,}\]]*/y;
/**
 * `keyword=value` in a libpq conninfo (a locator with no `scheme://`), as libpq reads it: a value in
 * single quotes (a backslash escapes the next character), else everything up to whitespace, any `#`,
 * `&`, `;` or `,` in it included (a backslash escapes there too).
 */
const CONNINFO_PAIR = /(?<![\w.-])([\w.-]+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)(?:[^\s\\]|\\.)*)/gs;
/**
 * A parameter's value in a URL locator, as a URL's readers take it: to the next `&` (WHATWG's
 * URLSearchParams, libpq's URI parser and node-postgres all end it there), a `#`, `;` or `,` included
 * (libpq's URI parser reads a `#` as part of the value; secretsIn adds WHATWG's reading, cut at `#`).
 */
const URL_VALUE = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&]+/y;

/** The sentence marks a text may put right after a value (`…password=wrong: password authentication failed`). */
const TEXT_MARKS = '.,;:';
/** A closing bracket or quote, and what opens it. */
const OPENER_OF: Readonly<Record<string, string>> = {
  ')': '(',
  ']': '[',
  '}': '{',
  '>': '<',
  "'": "'",
  '"': '"',
  '`': '`',
};

/** How many `closer`s the text before a name, on its line, leaves to close (brackets by count, quotes by parity). */
function leftOpen(before: string, closer: string): number {
  const opener = OPENER_OF[closer] ?? '';
  let opened = 0;
  for (const char of before)
    if (opener === closer) opened = char === opener ? 1 - opened : opened;
    else if (char === opener) opened++;
    else if (char === closer && opened > 0) opened--;
  return opened;
}

/** An unquoted value's run: to whitespace, a backslash escaping the next character; a query's: to an `&` too. */
const UNQUOTED_RUN = /(?:\\[\s\S]|[^\s\\])*\\?/y;
const QUERY_RUN = /(?:\\[\s\S]|[^\s\\&])*\\?/y;

/**
 * Where a secret-named value that starts at `from` ends, in free text (a message, an HTTP error
 * body, a driver's text), so that no part of it as any reader could take it — libpq, a URL's query
 * parser, a shell-ish `NAME=value` line — is left out:
 * - a value opening with a quote (`'` or `"`) runs to its closing quote on its line (a backslash
 *   escapes), and on as an unquoted value; a quote its line does not close is a character of an
 *   unquoted value;
 * - an unquoted value runs to whitespace (a backslash escapes the next character, as libpq reads
 *   it): every `#`, `&`, `;`, `,`, `=`, `@`, `/`, `?`, quote or bracket in it is part of it;
 *   a parameter of a query (its name right after `?` or `&`) ends at the next `&` too, where every
 *   URL reader ends it (`?token=***&user=y`);
 * - then the text's own punctuation is given back from its end, never from a quoted part: one sentence
 *   mark (`.`, `,`, `;` or `:`) and each closing bracket or quote that closes one opened before the name
 *   on its line (`(tried password=***),`). A secret that itself ends so shows that character; every
 *   other character of it is masked.
 */
function secretValueEnd(text: string, nameStart: number, from: number): number {
  const inQuery = text[nameStart - 1] === '?' || text[nameStart - 1] === '&';
  let at = from;
  let quoted = from;
  const quote = text[at];
  if (quote === "'" || quote === '"') {
    let close = from + 1;
    for (; close < text.length && text[close] !== quote && text[close] !== '\n'; close++)
      if (text[close] === '\\') close++;
    // A quote its line does not close opens nothing: the value is read unquoted (as libpq reads `"`).
    if (text[close] === quote) at = quoted = close + 1;
  }
  const run = inQuery ? QUERY_RUN : UNQUOTED_RUN;
  run.lastIndex = at;
  return givenBack(text, nameStart, quoted, at + (run.exec(text)?.[0].length ?? 0));
}

/**
 * The end of an unquoted value (text[from, end)) once the text's own punctuation is given back:
 * one sentence mark, and each closing bracket or quote that closes one opened before the name
 * (at nameStart) on its line.
 */
function givenBack(text: string, nameStart: number, from: number, end: number): number {
  let before: string | undefined;
  const given: Record<string, number> = {};
  let marked = false;
  while (end > from) {
    const char = text[end - 1] ?? '';
    if (!marked && TEXT_MARKS.includes(char)) marked = true;
    else if (OPENER_OF[char] === undefined) break;
    else {
      before ??= text.slice(text.lastIndexOf('\n', nameStart) + 1, nameStart);
      if (leftOpen(before, char) <= (given[char] ?? 0)) break;
      given[char] = (given[char] ?? 0) + 1;
    }
    end--;
  }
  return end;
}

/** Where each secret-named value of a free text is ([start, end) each; see secretValueEnd). */
function secretValueSpans(text: string, spans: [number, number][]): void {
  NAME_EQUALS.lastIndex = 0;
  for (let match = NAME_EQUALS.exec(text); match !== null; match = NAME_EQUALS.exec(text)) {
    // A value that is not a secret's is not skipped: a secret-named one inside it is found (`x=token=…`).
    if (!SECRET_NAME.test(match[1] ?? '')) continue;
    const from = match.index + match[0].length;
    const end = secretValueEnd(text, match.index, from);
    if (end > from) spans.push([from, end]);
    NAME_EQUALS.lastIndex = Math.max(end, from);
  }
}

/**
 * The quote a value opens with at `from`: `"` or `'`, or — in JSON text inside a JSON string
 * (`inString`: its member's name was quoted `\"…\"`) — `\"`; else undefined (an unquoted value).
 */
function openingQuote(text: string, from: number, inString: boolean): string | undefined {
  const char = text[from];
  if (char === '"' || char === "'") return char;
  return inString && char === '\\' && text[from + 1] === '"' ? '\\"' : undefined;
}

/**
 * Where a quoted value whose opening `quote` ends just before `from` closes: at its closing quote,
 * a backslash escaping the next character; a `\"`-quoted value (JSON text inside a JSON string) is
 * read as that string decodes it (`\\\"` is an escaped quote in it). A value its line does not close
 * runs to the line's end (a truncated body: the rest is masked).
 */
function closingQuote(text: string, from: number, quote: string): number {
  const escaped = quote.length === 2;
  let at = from;
  while (at < text.length) {
    const char = text[at];
    // A bare `"` in a `\"`-quoted value ends the JSON string holding it, and so the value.
    if (char === '\n' || char === '\r' || char === (escaped ? '"' : quote)) return at;
    if (char !== '\\') at++;
    else if (!escaped) at += 2;
    else if (text[at + 1] === '"') return at;
    else if (text[at + 1] !== '\\') at += 2;
    // `\\` is a backslash of the decoded string: it escapes the decoded character after it.
    else at += text[at + 2] === '\\' ? 4 : 3;
  }
  return text.length;
}

/** [start, end) of the quoted value at `from` (inside its quotes), pushed; where masking it ends. */
function quotedValueSpan(text: string, from: number, quote: string, spans: [number, number][]): number {
  const start = from + quote.length;
  const end = closingQuote(text, start, quote);
  spans.push([start, end]);
  return end;
}

/** JSON's whitespace (around a member's `:`). */
const isJsonSpace = (char: string | undefined): boolean =>
  char === ' ' || char === '\t' || char === '\n' || char === '\r';
/** A character of a name (`[\w.-]`, as NAME_EQUALS reads one). */
const isNameCode = (code: number): boolean => isWordCode(code) || code === 0x2e || code === 0x2d;

/**
 * At the `:` at `colon`: when it ends a strict-secret member of a JSON or Python text quoted in free
 * text (an HTTP error body, a driver's message: `{"password":"hunter2"}`, `{'token': 'abc'}`,
 * `{\"api_key\":\"…\"}` inside a JSON string), its value is pushed: a string's characters inside
 * its quotes (see closingQuote), a number or other scalar to the next `,`, `}`, `]` or whitespace;
 * an object or array is not masked as one (its members are read on their own). Where the scan goes on.
 */
function memberValueAt(text: string, colon: number, spans: [number, number][]): number {
  let close = colon - 1;
  while (close >= 0 && isJsonSpace(text[close])) close--;
  const quote = text[close];
  if (quote !== '"' && quote !== "'") return colon;
  const nameEnd = quote === '"' && text[close - 1] === '\\' ? close - 1 : close;
  let nameStart = nameEnd;
  while (nameStart > 0 && isNameCode(text.charCodeAt(nameStart - 1))) nameStart--;
  if (nameStart === nameEnd || text[nameStart - 1] !== quote) return colon;
  if (nameEnd < close && text[nameStart - 2] !== '\\') return colon;
  if (!isStrictSecretName(text.slice(nameStart, nameEnd))) return colon;
  let from = colon + 1;
  while (isJsonSpace(text[from])) from++;
  const open = openingQuote(text, from, nameEnd < close);
  if (open !== undefined) return quotedValueSpan(text, from, open, spans);
  MEMBER_SCALAR.lastIndex = from;
  const end = from + (MEMBER_SCALAR.exec(text)?.[0].length ?? 0);
  if (end > from) spans.push([from, end]);
  return Math.max(end, colon);
}

/**
 * What a `NAME: value`'s name stands after, where it is not at the text's start: whitespace, an
 * opening bracket, a quote or a comma. Not a `=`, `/`, `:` or `@`, after which it is part of a value
 * (`password=mytoken: refused` is no `mytoken:`).
 */
const NAME_COLON_AFTER = ' \t\n\r{[(,;"\'`';

/**
 * What may follow a quoted `NAME: value`'s closing quote for it to be a whole value: to its line's
 * end only closing brackets, commas and semicolons (spaces aside: `{ password: '***' }`), or a comma
 * and the next member's name and its `:` (`{ password: '***', host: 'h' }`, as Node shows an
 * object). A word after it is prose (`token: "abc" was refused`).
 */
const MEMBER_END = /(?:[ \t]*[,;}\])])*[ \t]*(?:$|[\r\n])|[ \t]*,[ \t]*["']?[\w.-]+["']?[ \t]*:/y;

/**
 * At the `:` at `colon`: when it ends a strict-secret `NAME` and a space or tab follows (YAML, a
 * header, an env dump, `{ password: 'hunter2' }` as Node shows an object), and what follows is one
 * whole value, that value is pushed: a quoted value's characters inside its quotes, when only
 * MEMBER_END follows it; else an unquoted run with no space or tab in it that is the rest of its line
 * (trailing spaces aside), the text's own punctuation given back (givenBack). A value with a word
 * after it is prose, not masked: our own issue lines are `CODE: message` with a sentence for the
 * message (`yaml_unexpected_token: Unexpected flow-seq-end token`, `site_credential: … holds 2
 * values`), and a code may end with a secret's word; a secret (a password, a key, a token) is one
 * token. Where the scan goes on.
 */
function colonValueAt(text: string, colon: number, spans: [number, number][]): number {
  let from = colon + 1;
  while (text[from] === ' ' || text[from] === '\t') from++;
  if (from === colon + 1) return colon;
  let nameStart = colon;
  while (nameStart > 0 && isNameCode(text.charCodeAt(nameStart - 1))) nameStart--;
  if (nameStart === colon || !NAME_COLON_AFTER.includes(text[nameStart - 1] ?? ' ')) return colon;
  if (!isStrictSecretName(text.slice(nameStart, colon))) return colon;
  const quote = openingQuote(text, from, false);
  if (quote !== undefined) {
    const close = closingQuote(text, from + 1, quote);
    MEMBER_END.lastIndex = close + 1;
    if (text[close] === quote && MEMBER_END.test(text)) {
      spans.push([from + 1, close]);
      return close;
    }
    // A quote its line does not close opens nothing: the value is read unquoted.
  }
  let end = from;
  while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  while (end > from && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  for (let at = from; at < end; at++) if (text[at] === ' ' || text[at] === '\t') return colon;
  end = givenBack(text, nameStart, from, end);
  if (end > from) spans.push([from, end]);
  return Math.max(end, colon);
}

/** Where each value of a strict-secret name before a `:` of a free text is (memberValueAt, colonValueAt). */
function colonValueSpans(text: string, spans: [number, number][]): void {
  for (let colon = text.indexOf(':'); colon >= 0;) {
    const next = isNameCode(text.charCodeAt(colon - 1))
      ? colonValueAt(text, colon, spans)
      : memberValueAt(text, colon, spans);
    colon = text.indexOf(':', next + 1);
  }
}

/**
 * A known secret shorter than this is masked only where it stands as a secret — a URL's userinfo
 * password, the value of a secret-named parameter — never wherever its characters occur (a
 * password `x` would otherwise turn every `x` of a message into ***).
 */
export const SHORT_SECRET_LENGTH = 4;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * Where a short known secret stands as a URL's userinfo password (`scheme://user:SECRET@`, which
 * USERINFO_PASSWORD does not read when it holds a `/`, `?` or quote). As a secret-named value
 * it needs nothing of its own: every such value is masked (secretValueSpans).
 */
function shortSecretSpans(text: string, secret: string, spans: [number, number][]): void {
  const pattern = new RegExp(
    `(\\b[a-z][a-z0-9+.-]*:\\/\\/[^\\s/?#@:'"<>\`]*:)${escapeRegExp(secret)}(?=@)`,
    'gi',
  );
  for (const match of text.matchAll(pattern)) {
    const start = match.index + (match[1]?.length ?? 0);
    spans.push([start, start + secret.length]);
  }
}

/** Each [start, end) of a regex's group 1 in text (a `d`-flagged, global regex). */
function groupSpans(text: string, pattern: RegExp, spans: [number, number][]): void {
  for (const match of text.matchAll(pattern)) {
    const span = match.indices?.[1];
    if (span !== undefined) spans.push([span[0], span[1]]);
  }
}

/**
 * The text with every secret it holds masked: URL passwords (`postgres://user:***@host/db`), a web
 * URL's lone userinfo (`https://***@host`), secret-named values in query strings, conninfo and any
 * free text (`password=***`, `sslpassword=***`, `?token=***`, `api_key=***`; where such a value ends:
 * secretValueEnd), and every occurrence of each `known` secret (a password or key taken from its
 * locator or environment variable, in whatever message quotes it: an error of a driver, an HTTP
 * error body) — of a known secret shorter than SHORT_SECRET_LENGTH, only where it stands as a
 * locator's password or a secret-named value; and every credential-shaped value (CREDENTIAL_SHAPES:
 * `sk-proj-…`, `ghp_…`, `AKIA…`, `Bearer …`, a URL's password). Every rule reads the text as it is
 * given, and what any of them finds is masked (spans that overlap are masked as one).
 */
export function maskSecrets(text: string, known: readonly string[] = []): string {
  const spans: [number, number][] = [];
  for (const secret of new Set(known)) {
    if (secret === '') continue;
    if (secret.length < SHORT_SECRET_LENGTH) shortSecretSpans(text, secret, spans);
    else
      for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1))
        spans.push([at, at + secret.length]);
  }
  groupSpans(text, USERINFO_PASSWORD, spans);
  groupSpans(text, WEB_USERINFO, spans);
  secretValueSpans(text, spans);
  colonValueSpans(text, spans);
  // A credential-shaped value (`sk-proj-…`, `ghp_…`, `AKIA…`, a bearer token) wherever it stands: a
  // key pasted as an argument is echoed by the usage error that refuses it.
  spans.push(...shapeSpans(text));
  return replaceSpans(text, spans);
}

/**
 * `maskSecrets` over every string of a JSON-shaped value (object keys too), returning a copy: for a
 * document that is then serialised. Masking its JSON text instead could cut through the syntax (a
 * key `PWD=` before `":""`) and miss a secret whose escaped form differs (a quote or backslash in it).
 * Under a key with a strict secret name (isStrictSecretName: `password`, `apiKey`, `PGPASSWORD`, not
 * `attemptKey` or `outputTokens`), every string but an empty one and every number, at any depth, is
 * `***` whole (`{password: 'hunter2'}`, `{credentials: {user: 'u'}}`); booleans and null are kept.
 */
export function maskSecretsIn<T>(value: T, known: readonly string[] = []): T {
  const mask = (node: unknown, secret: boolean): unknown => {
    if (typeof node === 'string')
      return !secret ? maskSecrets(node, known) : node === '' ? node : SECRET_MASK;
    if (typeof node === 'number') return secret ? SECRET_MASK : node;
    if (Array.isArray(node)) return node.map((item) => mask(item, secret));
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [
          maskSecrets(key, known),
          mask(item, secret || isStrictSecretName(key)),
        ]),
      );
    return node;
  };
  return mask(value, false) as T;
}

/**
 * The secrets a locator carries, as written and as decoded: its userinfo password (everything
 * between the first `:` after `://` and the last `@` before the path, even when the URL is
 * malformed), a web URL's lone userinfo, and the values of secret-named parameters. For
 * `maskSecrets(message, secretsIn(locator))`, so a message that quotes a password anywhere (a driver
 * repeating a URL it could not parse) is masked too.
 */
export function secretsIn(locator: string): string[] {
  const found: string[] = [];
  const web = /^(https?|wss?):\/\//i.test(locator);
  let url: URL | undefined;
  try {
    url = new URL(locator);
  } catch {
    url = undefined;
  }
  let parsed: string | undefined;
  if (url !== undefined) {
    if (url.password !== '') parsed = url.password;
    else if (web && url.username !== '') parsed = url.username;
  }
  if (!web || url === undefined || url.password !== '') {
    // As a person may have meant it (an unencoded `@`, `#` or `/` in a password, which a URL parser
    // reads otherwise or refuses): the userinfo runs to the last `@`.
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(locator);
    const rest = scheme === null ? '' : locator.slice(scheme[0].length);
    const at = rest.lastIndexOf('@');
    const userinfo = at < 0 ? '' : rest.slice(0, at);
    const colon = userinfo.indexOf(':');
    const meant = colon >= 0 ? userinfo.slice(colon + 1) : web ? userinfo : '';
    if (meant !== '') found.push(meant);
    // What a URL parser read as the password is only a piece of what was meant: mask what was meant.
    if (parsed !== undefined && meant.startsWith(parsed) && meant !== parsed) parsed = undefined;
  }
  if (parsed !== undefined) found.push(parsed);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(locator))
    for (const match of locator.matchAll(NAME_EQUALS)) {
      if (!SECRET_NAME.test(match[1] ?? '')) continue;
      URL_VALUE.lastIndex = match.index + match[0].length;
      const value = URL_VALUE.exec(locator)?.[0] ?? '';
      const unquoted = value.replace(/^(['"])(.*)\1$/s, '$2');
      // Also as node-postgres reads it (WHATWG's URLSearchParams): to a `#`, a `+` read as a space.
      const whatwg = unquoted.split('#')[0] ?? '';
      found.push(value, unquoted, whatwg, whatwg.replaceAll('+', ' '));
    }
  else
    for (const match of locator.matchAll(CONNINFO_PAIR)) {
      const [, name = '', value = ''] = match;
      if (!SECRET_NAME.test(name)) continue;
      const unquoted = value.startsWith("'") ? value.slice(1, -1) : value;
      found.push(value, unquoted, unquoted.replace(/\\(.)/gs, '$1'));
    }
  const decoded = found.map((value) => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  });
  return [...new Set([...found, ...decoded])].filter((value) => value !== '');
}

/** A locator for display: `postgres://user:***@host/db`, `host=h password=***`, `sqlite:book.sqlite`. */
export function displayLocator(locator: string): string {
  return maskSecrets(locator, secretsIn(locator));
}

// ── What a reader decodes ────────────────────────────────────────────────────────────────────────
// A page is read through decodings, so a credential can hide behind them: a browser decodes HTML
// character references (`ghp&#95;…`, `&colon;`) in a page's text and attribute values, and a URL's
// percent-encoding (`sk%2Dproj-…`, `p%40ss`) is decoded as a browser shows the URL and as a
// copy-paste or a server takes it — in a page's text as well — and the two layer (`&#37;2D`,
// `%26%2395;`, a double-encoded `%252D`). readerText applies both, round after round, until nothing
// changes (at most READER_ROUNDS rounds, each decoding every sequence it finds once); the credential
// shapes are looked for in the raw text and in that.

const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  colon: ':',
  sol: '/',
  bsol: '\\',
  tab: '\t',
  newline: '\n',
  period: '.',
  lpar: '(',
  rpar: ')',
  lowbar: '_',
  equals: '=',
  num: '#',
  nbsp: '\u00a0',
  hyphen: '-',
  dash: '-',
  commat: '@',
  plus: '+',
  comma: ',',
  semi: ';',
  excl: '!',
  quest: '?',
  percnt: '%',
};
const REFERENCE_SOURCE = '&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([a-zA-Z]+);)';
const REFERENCE = new RegExp(REFERENCE_SOURCE, 'g');
/** A character reference, or a run of percent-encoded bytes. */
const ENCODED = new RegExp(`${REFERENCE_SOURCE}|((?:%[0-9a-fA-F]{2})+)`, 'g');
/** Rounds of decoding readerText applies at most (an encoding of an encoding of an encoding). */
const READER_ROUNDS = 4;

/** What a character reference reads as (a named one not in the table: as written). */
function referenceValue(whole: string, hex?: string, decimal?: string, name?: string): string {
  if (name !== undefined) return NAMED_REFERENCES[name.toLowerCase()] ?? whole;
  const point = Number.parseInt(hex ?? decimal ?? '', hex === undefined ? 10 : 16);
  return Number.isSafeInteger(point) && point > 0 && point <= 0x10ffff
    ? String.fromCodePoint(point)
    : '\ufffd';
}

/** A text with its HTML character references decoded, once, as a browser decodes an attribute or a text. */
export function decodeCharacterReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, referenceValue);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A run of `%XX`, decoded: each UTF-8 sequence in it as its character, each byte that starts none
 * kept as written. Pieces: [offset in the run, what it reads as].
 */
function percentPieces(run: string): [number, string][] {
  const bytes: number[] = [];
  for (let at = 0; at < run.length; at += 3) bytes.push(Number.parseInt(run.slice(at + 1, at + 3), 16));
  const pieces: [number, string][] = [];
  for (let at = 0; at < bytes.length;) {
    const byte = bytes[at] ?? 0;
    const length =
      byte < 0x80
        ? 1
        : byte >= 0xc2 && byte <= 0xdf
          ? 2
          : byte >= 0xe0 && byte <= 0xef
            ? 3
            : byte >= 0xf0 && byte <= 0xf4
              ? 4
              : 0;
    let read: string | undefined;
    if (length === 1) read = String.fromCharCode(byte);
    else if (length > 1 && at + length <= bytes.length)
      try {
        read = UTF8.decode(Uint8Array.from(bytes.slice(at, at + length)));
      } catch {
        read = undefined;
      }
    if (read === undefined) {
      pieces.push([at * 3, run.slice(at * 3, at * 3 + 3)]);
      at++;
    } else {
      pieces.push([at * 3, read]);
      at += length;
    }
  }
  return pieces;
}

const decodeEncoded = (
  whole: string,
  hex?: string,
  decimal?: string,
  name?: string,
  percent?: string,
): string =>
  percent === undefined
    ? referenceValue(whole, hex, decimal, name)
    : percentPieces(percent)
        .map(([, read]) => read)
        .join('');

const mayBeEncoded = (text: string): boolean => text.includes('&') || text.includes('%');

/**
 * The text as a reader gets it: HTML character references and percent-encoding decoded, layered
 * (round after round until nothing changes, at most READER_ROUNDS). A text with neither `&` nor `%`
 * is returned as it is, unread.
 */
export function readerText(text: string): string {
  let current = text;
  for (let round = 0; round < READER_ROUNDS && mayBeEncoded(current); round++) {
    const next = current.replace(ENCODED, decodeEncoded);
    if (next === current) break;
    current = next;
  }
  return current;
}

/** readerText with, for each of its characters (and its end), where in the raw text it comes from. */
function readerDecoding(text: string): { readonly text: string; readonly from: Int32Array } {
  let current = text;
  let from = Int32Array.from({ length: text.length + 1 }, (_, index) => index);
  for (let round = 0; round < READER_ROUNDS && mayBeEncoded(current); round++) {
    let next = '';
    // A decoded text is never longer than the text (each sequence reads as at most its length).
    const starts = new Int32Array(current.length + 1);
    let length = 0;
    let done = 0;
    ENCODED.lastIndex = 0;
    for (let match = ENCODED.exec(current); match !== null; match = ENCODED.exec(current)) {
      for (let at = done; at < match.index; at++) starts[length++] = at;
      next += current.slice(done, match.index);
      const [whole, hex, decimal, name, percent] = match;
      const pieces: [number, string][] =
        percent === undefined ? [[0, referenceValue(whole, hex, decimal, name)]] : percentPieces(percent);
      for (const [offset, read] of pieces) {
        for (let unit = 0; unit < read.length; unit++) starts[length++] = match.index + offset;
        next += read;
      }
      done = match.index + whole.length;
    }
    if (done === 0) break;
    for (let at = done; at < current.length; at++) starts[length++] = at;
    next += current.slice(done);
    starts[length++] = current.length;
    if (next === current) break;
    const composed = new Int32Array(length);
    for (let at = 0; at < length; at++) composed[at] = from[starts[at] ?? 0] ?? text.length;
    from = composed;
    current = next;
  }
  return { text: current, from };
}

/**
 * Credential-shaped values (issue 19: what a public site must never carry): provider API keys
 * (`sk-…`, `sk-ant-…`, `sk-proj-…`), GitHub tokens (`ghp_…`, `gho_…`, `ghu_…`, `ghs_…`, `ghr_…`,
 * `github_pat_…`), AWS access key ids (`AKIA…`, `ASIA…`) and secret access keys written as
 * `aws_secret_access_key = …`, Slack tokens (`xox?-…`), bearer tokens (`Bearer …`), private key
 * blocks (`-----BEGIN … PRIVATE KEY-----`), and a URL's userinfo password (`scheme://user:…@`,
 * whatever its length; only the password is masked, and `***` is a masked one). Shapes, not
 * proofs: a harmless look-alike is masked too. Not a shape: a secret-named `name=value` (a page's
 * markup and scripts hold such text of their own; maskSecrets masks it in free text).
 */
interface CredentialShape {
  readonly pattern: RegExp;
}
const CREDENTIAL_SHAPES: readonly CredentialShape[] = [
  { pattern: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g },
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { pattern: /\baws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{30,}/gi },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi },
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/g },
];

/**
 * A URL's userinfo password, `\b[a-z][a-z0-9+.-]*://user:PASSWORD@` (the password runs to the
 * authority's last `@`, as a URL parser reads it, a `#` in it included as maskSecrets'
 * USERINFO_PASSWORD reads it), found from each `://` (a regex tried at every word would cost a
 * page's scan several times over): [start, end) of each password but `***`.
 */
const USERINFO_AFTER_SCHEME = /[^\s/?#@:'"<>`]*:([^\s/?'"<>`]+)@/dy;
const isSchemeCode = (code: number): boolean =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2b ||
  code === 0x2e ||
  code === 0x2d;
const isLetterCode = (code: number): boolean =>
  (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
const isWordCode = (code: number): boolean =>
  isLetterCode(code) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
function userinfoPasswords(text: string, spans: [number, number][]): void {
  for (let at = text.indexOf('://'); at >= 0;) {
    let start = at;
    while (start > 0 && isSchemeCode(text.charCodeAt(start - 1))) start--;
    let scheme = false;
    for (let p = start; p < at && !scheme; p++)
      scheme = isLetterCode(text.charCodeAt(p)) && (p === 0 || !isWordCode(text.charCodeAt(p - 1)));
    USERINFO_AFTER_SCHEME.lastIndex = at + 3;
    const match = scheme ? USERINFO_AFTER_SCHEME.exec(text) : null;
    const span = match?.indices?.[1];
    if (match !== null && span !== undefined) {
      if (match[1] !== SECRET_MASK) spans.push([span[0], span[1]]);
      at = text.indexOf('://', span[1] + 1);
    } else at = text.indexOf('://', at + 1);
  }
}

/** Where each credential-shaped value of `text` is ([start, end) of what is masked), per shape in order. */
function shapeSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const { pattern } of CREDENTIAL_SHAPES) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
      spans.push([match.index, match.index + match[0].length]);
  }
  userinfoPasswords(text, spans);
  return spans;
}

/**
 * A page's own escaping (`&quot;`, `&#39;`, `&#xa;`, `&lt;`, `&gt;`, `&middot;`, `&mdash;`,
 * `&ndash;`, `&hellip;`, `&nbsp;`, and `&amp;` before anything but a reference; a bare `&`, as in a
 * script's `&&`, is no reference and decodes to itself) decodes to a mark, a
 * quote or a space: no letter, digit or `_`, no `:`, `/`, `@`, `%` or `&` that starts another layer.
 * Such a character can join or complete only two shapes — an AWS secret key (`="…`, a line break
 * around its `=`) and a bearer token (a line break or no-break space after `Bearer`); in a URL's
 * userinfo it can only stand where its raw reference does too (`p&middot;w@`: found raw). Both need
 * their name raw in the text. So a text whose every encoded sequence is such escaping, and that
 * names neither, decodes to nothing the shapes find that they do not find raw: it is not decoded
 * (issue 19, docs/benchmarks.md Run 11; a property test checks it against the full decoding).
 */
const OTHER_THAN_PAGE_ESCAPING =
  /&(?!(?:quot|#39|#x27|#34|#x22|#xa|#10|lt|gt|middot|mdash|ndash|hellip|nbsp);|amp;(?![#a-zA-Z]))(?:#[0-9]|#[xX][0-9a-fA-F]|[a-zA-Z]+;)|%[0-9a-fA-F]{2}/;
const JOINED_BY_PAGE_ESCAPING = /bearer|aws_secret_access_key/i;

/** The text a reader decodes, when the shapes could find in it what they do not find raw (else undefined). */
function decodedToScan(text: string): string | undefined {
  if (!mayBeEncoded(text)) return undefined;
  if (!OTHER_THAN_PAGE_ESCAPING.test(text) && !JOINED_BY_PAGE_ESCAPING.test(text)) return undefined;
  const decoded = readerText(text);
  return decoded === text ? undefined : decoded;
}

/**
 * Every credential-shaped value in `text` (see CREDENTIAL_SHAPES), in the order found per shape: in
 * the raw text, and — each one not found there — in what a reader decodes it to (readerText).
 */
export function credentialShapedValues(text: string): string[] {
  const values = shapeSpans(text).map(([start, end]) => text.slice(start, end));
  const decoded = decodedToScan(text);
  if (decoded === undefined) return values;
  const raw = [...values];
  for (const [start, end] of shapeSpans(decoded)) {
    const value = decoded.slice(start, end);
    const same = raw.indexOf(value);
    if (same >= 0) raw.splice(same, 1);
    else values.push(value);
  }
  return values;
}

/** `text` with each span (raw offsets, any order) replaced by ***; spans that overlap are masked as one. */
function replaceSpans(text: string, spans: readonly [number, number][]): string {
  const sorted = spans.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let done = 0;
  for (const [start, end] of sorted) {
    if (end <= done) continue;
    if (start >= done) out += `${text.slice(done, start)}${SECRET_MASK}`;
    done = end;
  }
  return out + text.slice(done);
}

/**
 * The text with every credential-shaped value replaced by ***, pass after pass until
 * credentialShapedValues finds none (checked, not assumed): what `evals publish` does to every file
 * it writes, so `--verify`'s site_credential — the same detector — never finds one. A value found
 * only in the decoded text (readerText) is masked where it is written: the raw characters it was
 * decoded from, encodings and all. Only the shapes: a page's markup and scripts hold `name=value`
 * text that maskSecrets would rewrite.
 */
export function maskCredentialShapes(text: string): string {
  let masked = text;
  for (;;) {
    let spans = shapeSpans(masked);
    const decoded = spans.length === 0 ? decodedToScan(masked) : undefined;
    // Where each character came from is worked out only for a text whose decoded form holds a shape.
    if (decoded !== undefined && shapeSpans(decoded).length > 0) {
      const decoding = readerDecoding(masked);
      spans = shapeSpans(decoding.text).map(([start, end]): [number, number] => [
        decoding.from[start] ?? masked.length,
        decoding.from[end] ?? masked.length,
      ]);
    }
    const next = replaceSpans(masked, spans);
    if (next === masked) return masked;
    masked = next;
  }
}

/**
 * The text with every credential-shaped value, and every secret maskSecrets finds, replaced by ***.
 * When the text a reader decodes (readerText) holds a secret maskSecrets finds that the raw text
 * does not hide from it (`token%3D…`, `%70assword=…`), the decoded text, masked, is what is kept.
 */
export function scrubCredentials(text: string): string {
  const masked = maskSecrets(maskCredentialShapes(text));
  const decoded = readerText(masked);
  if (decoded === masked) return masked;
  const decodedMasked = maskSecrets(decoded);
  return decodedMasked === decoded ? masked : maskCredentialShapes(decodedMasked);
}
