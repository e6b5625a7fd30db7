// The file names of a published site (issue 19): ids from the ledger become one path segment each,
// injectively, so two ids never share a page and no id names a path outside its folder. A name
// keeps a-z, 0-9, `_` and `-` as they are and writes every other code point as `~<hex>~` (an
// uppercase letter too: case-insensitive file systems would fold `A` into `a`). It holds no `/`,
// `\`, `.` or NUL, so never `..` or a separator; `.` joins the parts of an attempt's name. A name
// longer than MAX_NAME is `~h<sha256>` of the ids instead: `~h` never starts an encoded code point
// (`h` is not a hex digit), so the two forms never meet.
import { createHash } from 'node:crypto';

/** Longest encoded name kept as is (file systems allow 255 bytes; `.html` and a margin stay free). */
const MAX_NAME = 200;

/** One id as a path segment: injective, with no separator, dot or `..`. */
export function nameOf(id: string): string {
  return bounded([id], encode(id));
}

function encode(id: string): string {
  let name = '';
  for (const char of id)
    name += /^[a-z0-9_-]$/.test(char) ? char : `~${(char.codePointAt(0) ?? 0).toString(16)}~`;
  // The empty id would be an empty segment: written as a lone `~~`, which encode never makes otherwise.
  return name === '' ? '~~' : name;
}

function bounded(ids: readonly string[], name: string): string {
  if (name.length <= MAX_NAME) return name;
  return `~h${createHash('sha256').update(JSON.stringify(ids)).digest('hex')}`;
}

/** The folder of a campaign: `campaigns/<name>`. */
export const campaignFolder = (campaignId: string): string => `campaigns/${nameOf(campaignId)}`;

/** A case's page, inside its campaign folder (upstream's `tests/*.html`). */
export const casePage = (caseId: string): string => `tests/${nameOf(caseId)}.html`;

/** An attempt's page, inside its campaign folder: its case, config and attempt id, each encoded. */
export function attemptPage(key: { caseId: string; configId: string; attemptId: string }): string {
  const parts = [key.caseId, key.configId, key.attemptId];
  return `attempts/${bounded(parts, parts.map(encode).join('.'))}.html`;
}
