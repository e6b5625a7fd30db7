// `evals report --format md` end to end with hostile ids: bundles whose case and config ids hold
// raw HTML, a javascript: link, @mentions, #refs, autolinks and carriage returns / newlines that
// would forge table rows and headings are ingested with the real `evals` binary, and its Markdown,
// read by a real GFM renderer, has only the report's own elements and shows each id as its text.
// (Every place and arbitrary strings: packages/evalbook/test/render-markdown.test.ts.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

const CASE_ID = 'fix\r| forged | row |\n# heading <img src=x onerror=alert(1)> [x](javascript:alert(1))';
const CONFIG_A = '@octocat <b>base</b> | x';
const CONFIG_B = 'cand #1 https://evil.example www.evil.example me@evil.example';

let dir: string;
const evals = (args: string[]): string => {
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`evals ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  return result.stdout;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-report-md-'));
  mkdirSync(join(dir, 'runs'));
  [CONFIG_A, CONFIG_B].forEach((configId, config) => {
    for (let attempt = 0; attempt < 2; attempt++)
      writeFileSync(
        join(dir, 'runs', `${config}-${attempt}.json`),
        JSON.stringify(
          syntheticAttempt({
            caseId: CASE_ID,
            configId,
            attemptId: `a${config}${attempt}`,
            runTerminalState: config === 1 && attempt === 0 ? 'failed' : 'succeeded',
          }),
        ),
      );
  });
  evals(['ingest', 'runs', '--store', 'sqlite:book.sqlite']);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals report --format md with hostile ids', () => {
  it('renders only the report’s own elements, each id as its text', () => {
    const markdown = evals([
      'report',
      '--format',
      'md',
      '--store',
      'sqlite:book.sqlite',
      '--a',
      CONFIG_A,
      '--b',
      CONFIG_B,
    ]);
    const html = micromark(markdown, {
      extensions: [gfm()],
      htmlExtensions: [gfmHtml()],
      allowDangerousHtml: true,
      allowDangerousProtocol: true,
    });
    expect(html).not.toMatch(/<(img|a|b|h1|script)\b/);
    // the report's own headings only: the title, the comparison, the grid, Configs and Check drift
    expect(html.match(/<h[1-6]>/g)).toEqual(['<h2>', '<h3>', '<h3>', '<h3>', '<h3>']);
    expect(html).toMatch(/<h3>Grid: newest run [^<]*<\/h3>/);
    // the grid: a header row (case and the two configs), then three cells a row, whatever the ids hold
    const grid = html.slice(html.indexOf('<h3>Grid: '));
    const gridTable = grid.slice(0, grid.indexOf('</table>'));
    const gridRows = gridTable.match(/<tr>/g)?.length ?? 0;
    expect(gridRows).toBeGreaterThan(1);
    expect(gridTable.match(/<th[ >]/g)).toHaveLength(3);
    expect(gridTable.match(/<td[ >]/g)).toHaveLength(3 * (gridRows - 1));
    expect(html).toContain('<h3>Configs</h3>');
    expect(html).toContain('<h3>Check drift</h3>');
    // the configs table: a header row and one row per config, five cells each
    const configs = html.slice(html.indexOf('<h3>Configs</h3>'));
    const table = configs.slice(0, configs.indexOf('</table>'));
    expect(table.match(/<tr>/g)).toHaveLength(3);
    expect(table.match(/<td[ >]/g)).toHaveLength(10);
    // the regressions table: a header row and the one case, four cells (case, A and B with their
    // intervals, Δ)
    const regressions = html.slice(html.indexOf('<table>'), html.indexOf('</table>'));
    expect(regressions.match(/<tr>/g)).toHaveLength(2);
    expect(regressions.match(/<td[ >]/g)).toHaveLength(4);
    const shown = html.replaceAll('\u200b', '');
    expect(shown).toContain(
      'fix\\u000d| forged | row |\\u000a# heading &lt;img src=x onerror=alert(1)&gt; [x](javascript:alert(1))',
    );
    expect(shown).toContain('@octocat &lt;b&gt;base&lt;/b&gt; | x');
    expect(shown).toContain('cand #1 https://evil.example www.evil.example me@evil.example');
    // the comparison heading names both configs as text; GitHub would link none of them
    expect(html).not.toMatch(/@octocat|#1 |https:\/\/|www\.evil|me@evil/);
  });
});
