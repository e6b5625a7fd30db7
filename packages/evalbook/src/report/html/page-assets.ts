// The stylesheet and script every HTML page of Evals inlines (the report and an attempt's replay
// page alike): report.css and report.js, real files beside this module that the build copies into
// dist (build/copy-report-assets.mjs), read once and checked; and the one Content-Security-Policy
// those pages carry (no network: default-src 'none'; the one script allowed by its sha256).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The page's stylesheet and script, as inlined, and the script's sha256 (base64) for the CSP. */
export interface PageAssets {
  readonly style: string;
  readonly script: string;
  readonly scriptSha256: string;
}

/**
 * report.css and report.js from `folder`, checked: a file missing, or one that would end its own
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
  return {
    style: read('report.css', 'style'),
    script,
    scriptSha256: createHash('sha256').update(script).digest('base64'),
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
