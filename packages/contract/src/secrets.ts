// Secrets are never echoed: maskSecrets renders any text that may hold a locator (a store URL, a libpq
// keyword/value conninfo, a provider base URL) or a known secret (a password, an API key) for display,
// with every secret replaced by ***. It is the one masking function: store locators in summaries,
// reports and errors, provider settings and HTTP error bodies all go through it.

/** What a masked secret reads as. */
export const SECRET_MASK = '***';

/**
 * A parameter name that names a secret, in a query string (`?token=…`) or a conninfo
 * (`password=…`): password, sslpassword, passwd, pwd, secret, token, access_token, api_key, apikey,
 * key, sig, signature, credential, auth… Masking a harmless value too is the safe mistake.
 */
const SECRET_NAME = /(?:pass(?:word)?|passwd|pwd|secret|token|key|sig(?:nature)?|credential|auth)/i;

/** Whether a parameter or property name names a secret (SECRET_NAME: password, token, api_key, …). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `scheme://user:password@` — the password runs to the authority's last `@` (as a URL parser reads it). */
const USERINFO_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:'"<>`]*):([^\s/?#'"<>`]*)@/gi;
/** `https://token@` — a lone userinfo of a web URL is a credential (a postgres user name is not). */
const WEB_USERINFO = /\b(https?:\/\/|wss?:\/\/)([^\s/?#@:'"<>`]+)@/gi;
/**
 * `name=value` in a text (query string or conninfo; a conninfo value may be quoted). A `:` or `.`
 * before whitespace, a delimiter or the end is the text's own separator (`…?password=wrong: password
 * authentication failed`), not part of the value: masking never eats the text after a secret. A
 * secret taken from its locator (secretsIn, NAME_VALUE_WHOLE) is masked whole first, whatever it ends with.
 */
const NAME_VALUE =
  /(?<![\w.-])([\w.-]+)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?:[^\s&#;,'"<>`)\]}:.]|[:.](?=[^\s&#;,'"<>`)\]}]))+)/g;
/** `name=value` in a locator: the value runs to the next delimiter, a trailing `:` or `.` included. */
const NAME_VALUE_WHOLE =
  /(?<![\w.-])([\w.-]+)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&#;,'"<>`)\]}]+)/g;

/**
 * The text with every secret it holds masked: URL passwords (`postgres://user:***@host/db`), a web
 * URL's lone userinfo (`https://***@host`), secret-named parameters in query strings and conninfo
 * (`password=***`, `sslpassword=***`, `?token=***`, `api_key=***`), and every occurrence of each
 * `known` secret (a password or key taken from its locator or environment variable, in whatever
 * message quotes it: an error of a driver, an HTTP error body).
 */
export function maskSecrets(text: string, known: readonly string[] = []): string {
  let masked = text;
  // Known secrets first and longest first, so a secret that holds another (or holds what a URL
  // parser took for the password) is masked whole.
  for (const secret of [...new Set(known)]
    .filter((value) => value !== '')
    .sort((a, b) => b.length - a.length))
    masked = masked.split(secret).join(SECRET_MASK);
  return masked
    .replace(USERINFO_PASSWORD, (_match, scheme: string, user: string) => `${scheme}${user}:${SECRET_MASK}@`)
    .replace(WEB_USERINFO, (_match, scheme: string) => `${scheme}${SECRET_MASK}@`)
    .replace(NAME_VALUE, (match, name: string, equals: string) =>
      SECRET_NAME.test(name) ? `${name}${equals}${SECRET_MASK}` : match,
    );
}

/**
 * `maskSecrets` over every string of a JSON-shaped value (object keys too), returning a copy: for a
 * document that is then serialised. Masking its JSON text instead could cut through the syntax (a
 * key `PWD=` before `":""`) and miss a secret whose escaped form differs (a quote or backslash in it).
 */
export function maskSecretsIn<T>(value: T, known: readonly string[] = []): T {
  const mask = (node: unknown): unknown => {
    if (typeof node === 'string') return maskSecrets(node, known);
    if (Array.isArray(node)) return node.map(mask);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [maskSecrets(key, known), mask(item)]),
      );
    return node;
  };
  return mask(value) as T;
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
  for (const match of locator.matchAll(NAME_VALUE_WHOLE)) {
    const [, name = '', , value = ''] = match;
    if (SECRET_NAME.test(name)) found.push(value, value.replace(/^(['"])(.*)\1$/s, '$2'));
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

/**
 * Credential-shaped values (issue 19: what a public site must never carry): provider API keys
 * (`sk-…`, `sk-ant-…`, `sk-proj-…`), GitHub tokens (`ghp_…`, `gho_…`, `ghu_…`, `ghs_…`, `ghr_…`,
 * `github_pat_…`), AWS access key ids (`AKIA…`, `ASIA…`) and secret access keys written as
 * `aws_secret_access_key = …`, Slack tokens (`xox?-…`), bearer tokens (`Bearer …`), and private key
 * blocks (`-----BEGIN … PRIVATE KEY-----`). Shapes, not proofs: a harmless look-alike is masked too.
 */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\baws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{30,}/gi,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/g,
];

/** Every credential-shaped value in `text` (see CREDENTIAL_SHAPES), in the order found per shape. */
export function credentialShapedValues(text: string): string[] {
  return CREDENTIAL_SHAPES.flatMap((shape) => [...text.matchAll(shape)].map((match) => match[0]));
}

/**
 * The text with every credential-shaped value replaced by ***, pass after pass until
 * credentialShapedValues finds none (checked, not assumed): what `evals publish` does to every file
 * it writes, so `--verify`'s site_credential — the same shapes — never finds one. Only the shapes:
 * a page's markup and scripts hold `name=value` text that maskSecrets would rewrite.
 */
export function maskCredentialShapes(text: string): string {
  let masked = text;
  // Each pass replaces values of 8 or more characters by 3: it ends.
  for (;;) {
    let next = masked;
    for (const shape of CREDENTIAL_SHAPES) next = next.replace(shape, SECRET_MASK);
    if (next === masked) return masked;
    masked = next;
  }
}

/** The text with every credential-shaped value, and every secret maskSecrets finds, replaced by ***. */
export function scrubCredentials(text: string): string {
  return maskSecrets(maskCredentialShapes(text));
}
