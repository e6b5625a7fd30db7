// What every report Evals writes shows of recorded text: the one masking rule of the report
// renderers (HTML pages, Markdown, JUnit, CSV, the JSON report's attempt rows). A bundle's text — the
// agent's progress and assistant text, a tool's input and result, the proposed result's summary, a
// failure's message, a check's reason, a case's description — can quote a credential, and a report
// is an artifact CI uploads and a PR comment quotes. The rule is the contract's (secrets.ts), called,
// never copied:
//   shownText(text): scrubCredentials — every credential shape (`sk-proj-…`, `ghp_…`, `AKIA…`, a
//     private key block, a bearer token, a URL's password) and every secret-named value
//     (`password=…`, `?token=…`, `api_key=…`), raw or behind HTML or percent encoding, as ***;
//   shownJson(value): shownText over every string of a JSON-shaped value, keys too (a copy);
//   shownInPage(text): shownText for a page's text, an id-like one left to the page pass;
//   maskedPage(html): maskCredentialShapes over a whole HTML page as written — its attributes and
//     embedded data included; only the shapes, since a page's own markup and script hold
//     `name=value` text (the pass `evals publish` runs over every file and `--verify` checks).
import { maskCredentialShapes, scrubCredentials } from '@paperclip-evals/contract';

/**
 * The shown form of the short texts seen last: a report repeats the same reasons and codes over
 * 100,000 attempts (`runner: run_failed`, `check objective-satisfied failed`), and scrubCredentials
 * is a pure function of its text. Bounded: cleared when full; a text longer than SHOWN_CACHED_LENGTH
 * is not kept.
 */
const shownCache = new Map<string, string>();
const SHOWN_CACHE_SIZE = 4096;
const SHOWN_CACHED_LENGTH = 256;

/** Recorded text as a report shows it: every secret the contract finds in it as *** (scrubCredentials). */
export function shownText(text: string): string {
  const cached = shownCache.get(text);
  if (cached !== undefined) return cached;
  const shown = scrubCredentials(text);
  if (text.length <= SHOWN_CACHED_LENGTH) {
    if (shownCache.size >= SHOWN_CACHE_SIZE) shownCache.clear();
    shownCache.set(text, shown);
  }
  return shown;
}

/** A JSON-shaped value with shownText over each of its strings, object keys too: a copy, for serialising. */
export function shownJson<T>(value: T): T {
  const show = (node: unknown): unknown => {
    if (typeof node === 'string') return shownText(node);
    if (Array.isArray(node)) return node.map(show);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [shownText(key), show(item)]));
    return node;
  };
  return show(value) as T;
}

/**
 * Letters, digits and `._:-` only: an id, a code, a digest, a status. Of the contract's rules only
 * the credential shapes can match such a text (every other one needs a `=`, `@`, `/`, `%`, `&` or a
 * space; a property test holds scrubCredentials to that), and on a page the page pass masks those.
 */
const ID_LIKE = /^[A-Za-z0-9._:-]*$/;

/**
 * Recorded text as an HTML page writes it, before maskedPage passes over the whole page: shownText,
 * but an id-like text as it is (its shapes are the page pass's) — a replay page writes some 300
 * texts, most of them ids, and 100,000 pages are published (docs/benchmarks.md).
 */
export function shownInPage(text: string): string {
  return ID_LIKE.test(text) ? text : shownText(text);
}

/** A whole HTML page as written, with every credential-shaped value in it as *** (maskCredentialShapes). */
export function maskedPage(html: string): string {
  return maskCredentialShapes(html);
}
