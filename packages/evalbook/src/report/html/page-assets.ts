// The stylesheets and script Evals' HTML pages inline: replay.css (the base and an attempt's replay),
// report.css (the rest of the report) and report.js (the report's script), real files beside this
// module that the build copies into dist (build/copy-report-assets.mjs), read once and checked; and
// the Content-Security-Policy those pages carry. The report inlines replay.css + report.css and its
// script (pageCsp: no network, the one script by its sha256). An attempt's replay page (attempt-page.ts)
// expands tool calls with <details>: it inlines replay.css and clip.js (only its clipped texts'
// "show all"), and its CSP (replayPageCsp) allows that one stylesheet and that one script by sha256.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The pages' stylesheets and script, as inlined, and the sha256 (base64) a CSP names them by. */
export interface PageAssets {
  /** The report's stylesheet: replay.css then report.css. */
  readonly style: string;
  readonly script: string;
  readonly scriptSha256: string;
  /** replay.css alone: all an attempt's replay page inlines. */
  readonly replayStyle: string;
  readonly replayStyleSha256: string;
  /** clip.js: an attempt's replay page's one script (its clipped texts' "show all"). */
  readonly clipScript: string;
  readonly clipScriptSha256: string;
}

/**
 * replay.css, report.css and report.js from `folder`, checked: a file missing, or one that would end its own
 * <style> or <script> element early, is a broken build — an internal error, never a page without
 * its script or with markup injected.
 */
export function readPageAssets(folder: URL): PageAssets {
  const read = (name: string, element: string): string => {
    const url = new URL(name, folder);
    let text: string;
    try {
      text = readFileSync(url, 'utf8');
    } catch (cause) {
      throw new Error(
        `the HTML report's ${name} is missing (expected ${fileURLToPath(url)}, written by \`pnpm run build\`)`,
        { cause },
      );
    }
    if (text.toLowerCase().includes(`</${element}`))
      throw new Error(`the HTML report's ${name} holds "</${element}", which would end its element early`);
    return text;
  };
  const script = read('report.js', 'script');
  const replayStyle = read('replay.css', 'style');
  const clipScript = read('clip.js', 'script');
  const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');
  return {
    style: `${replayStyle}${read('report.css', 'style')}`,
    script,
    scriptSha256: sha256(script),
    replayStyle,
    replayStyleSha256: sha256(replayStyle),
    clipScript,
    clipScriptSha256: sha256(clipScript),
  };
}

let pageAssets: PageAssets | undefined;

/**
 * The page's assets, real files beside this module (src/report/html/ when the sources run; the
 * build copies them into dist/report/html/), read once.
 */
export function reportPageAssets(): PageAssets {
  pageAssets ??= readPageAssets(new URL('./', import.meta.url));
  return pageAssets;
}

/** The page's Content-Security-Policy: nothing from the network, inline style, the one script by its sha256. */
export const pageCsp = (scriptSha256: string): string =>
  `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptSha256}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** A replay page's Content-Security-Policy: nothing from the network, its one stylesheet and its one script (clip.js) by sha256. */
export const replayPageCsp = (styleSha256: string, scriptSha256: string): string =>
  `default-src 'none'; style-src 'sha256-${styleSha256}'; script-src 'sha256-${scriptSha256}'; img-src data:; base-uri 'none'; form-action 'none'`;
