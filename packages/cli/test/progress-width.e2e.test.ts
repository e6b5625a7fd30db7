// The progress line on a real terminal (script(1)'s pseudo-terminal, set to 40 columns by stty): every
// frame `evals ingest` and `publish` draw fits in 39 columns, wide characters of a path
// counted 2, so no redraw leaves a wrapped row behind (the review's 80-column terminal filled with
// leftovers). The property over every width and text is progress-width.unit.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';

import { displayWidth } from '../src/width.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));
const ERASE = '\r\u001b[K';
const COLUMNS = 40;

const shQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** `evals ARGS` on a pseudo-terminal COLUMNS wide: what the terminal was sent (both streams), colours taken out. */
function onTerminal(args: readonly string[]): { status: number | null; shown: string } {
  const command = [process.execPath, EVALS_BIN, ...args].map(shQuote).join(' ');
  const run = spawnSync('script', ['-qefc', `stty cols ${COLUMNS} rows 24; ${command}`, '/dev/null'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  // eslint-disable-next-line no-control-regex -- ANSI colour sequences are what is removed
  return { status: run.status, shown: run.stdout.replace(/\x1b\[[0-9;]*m/g, '') };
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-progress-pty-'));
  await mkdir(join(dir, '評価サイトの出力-😀'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(`on a ${COLUMNS}-column terminal`, () => {
  it('ingest and publish draw every frame within the width', () => {
    const store = `sqlite:${join(dir, 'book.sqlite')}`;
    const runs = [
      onTerminal(['ingest', VALID, '--store', store]),
      onTerminal(['publish', '--store', store, '--out', join(dir, '評価サイトの出力-😀', 'site')]),
    ];
    for (const { status, shown } of runs) {
      expect(status, shown).toBe(0);
      const frames = shown
        .split(ERASE)
        .slice(1)
        .filter((frame) => frame !== '' && !frame.includes('\n'));
      expect(frames.length, shown).toBeGreaterThan(0);
      for (const frame of frames) expect(displayWidth(frame), frame).toBeLessThanOrEqual(COLUMNS - 1);
    }
  });
});
