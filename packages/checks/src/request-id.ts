// Echoing a numeric request id exactly. JSON.parse reads numbers as doubles, so an id such as
// 9007199254740993 (2^53 + 1) or 0.10000000000000000001 comes out changed; for those ids (and -0)
// the reply carries the id's number token as the request wrote it, found by a narrow scan of the
// request line. Every other id is echoed from the parsed value, which is exact.
import { lastIdToken } from './request-text.js';

/** A numeric id whose parsed value would not print back as the request wrote it. */
export function idNeedsRawToken(id: unknown): id is number {
  return typeof id === 'number' && (!Number.isSafeInteger(id) || Object.is(id, -0));
}

const NUMBER_TOKEN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The number token of the top-level `id` member of `text`, exactly as written, or undefined when
 * the member is absent or not a number. `text` is one JSON object; when it repeats `id`, the last
 * one counts, as JSON.parse keeps it (request-text.ts's scanner finds it).
 */
export function rawIdToken(text: string): string | undefined {
  const token = lastIdToken(text);
  return token !== undefined && NUMBER_TOKEN.test(token) ? token : undefined;
}
