// The progress line never wraps: every frame drawn on a terminal is at most its width − 1 columns
// (counted as shown: wide CJK and emoji 2, combining marks 0), for any width from 20 to 200 and any
// campaign id or other user text in it, and again after a resize; a narrow terminal drops the last
// parts first and cuts the label (a campaign id) in its middle. Property tests over the printer and
// every line's maker, and the commands in-process on a narrow terminal.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { phaseLine, progressLine } from '../src/commands/campaign.ts';
import { clearProgress, drawProgress, printLines, setOutputSink } from '../src/print.ts';
import { fitProgress, progressText } from '../src/progress.ts';
import { cutEnd, cutMiddle, displayWidth } from '../src/width.ts';

import type { ProgressLine } from '../src/progress.ts';
import type { CampaignProgress } from '@paperclip-evals/campaign';

import { evalsOnTerminal } from './support/evals-in-process.ts';

const ERASE = '\r\u001b[K';

/** The frames a terminal was sent: what follows each erase up to the next, messages (ending in a newline) aside. */
const framesOf = (stderr: string): string[] =>
  stderr
    .split(ERASE)
    .slice(1)
    .filter((frame) => frame !== '' && !frame.includes('\n'));

describe('displayWidth counts columns as a terminal draws them', () => {
  it.each([
    ['ascii', 'demo-20261203', 13],
    ['CJK, 2 each', '評価キャンペーン', 16],
    ['a combining mark joins its letter', 'cafe\u0301', 4],
    ['an emoji', 'ok 👍', 5],
    ['an emoji with a skin tone is one', '👍🏽', 2],
    ['fullwidth letters', 'ＡＢ', 4],
    ['Hangul', '한국', 4],
    ['the ellipsis', '…', 1],
  ])('%s', (_name, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  it('cuts by columns, never through a character', () => {
    expect(cutEnd('評価キャンペーン', 7)).toBe('評価キ…');
    expect(cutMiddle('demo-20261203-999999', 11)).toBe('demo-…99999');
    expect(cutMiddle('評価キャンペーン', 9)).toBe('評価…ーン');
  });
});

/** User text as it may come: ASCII ids, wide characters, emoji, combining marks, mixed. */
const userText = fc.oneof(
  fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,60}$/),
  fc
    .array(fc.constantFrom('評', '価', 'キ', 'ャ', '😀', '👍🏽', 'é', 'e\u0301', 'a', '-', 'Ｗ', '한'), {
      minLength: 1,
      maxLength: 50,
    })
    .map((chars) => chars.join('')),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
);

const progress: CampaignProgress = {
  planned: 1200,
  done: 37,
  running: 4,
  resumed: 0,
  byDisposition: {},
  failuresByClass: { provider_budget_coverage_unknown: 2, session_timeout: 1 },
  observedNanodollars: 4_130_000,
  unknownCostTries: 3,
  unsettledTries: 1,
  ceilingNanodollars: 10_000_000_000,
  etaMs: 312_000,
  stopped: null,
};

/** Every line maker, given user text as its label or part. */
const lineOf = fc.oneof(
  userText.map((id) => progressLine(id, progress, performance.now())),
  userText.map((id) => progressLine(id, { ...progress, stopped: 'budget' }, performance.now())),
  fc
    .tuple(
      userText,
      fc.constantFrom('preflight', 'qualify', 'accept_qualification', 'install_eval_session', 'ledger'),
    )
    .map(([id, phase]) => phaseLine(id, phase, performance.now())),
  fc.tuple(userText, fc.nat(10_000)).map(([label, done]) => progressText(label, done, 10_000, 3.2, 'detail')),
  fc.tuple(userText, fc.array(userText, { maxLength: 6 })).map(([label, parts]) => ({ label, parts })),
);

/** Draws `lines` through the printer on a terminal `columns` wide (resized to `resized` after the first), returning the frames. */
function drawn(lines: readonly ProgressLine[], columns: number, resized = columns): string[] {
  const written: string[] = [];
  let width = columns;
  let onResize: (() => void) | undefined;
  const previous = setOutputSink({
    write: (_stream, text, done) => {
      written.push(text);
      done?.();
    },
    isTerminal: (stream) => stream === 'stderr',
    columns: () => width,
    onResize: (listener) => {
      onResize = listener;
      return () => (onResize = undefined);
    },
  });
  try {
    for (const [index, line] of lines.entries()) {
      drawProgress(line);
      if (index === 0 && resized !== columns) {
        width = resized;
        onResize?.();
      }
      printLines('stderr', ['a message between two draws']);
    }
    clearProgress();
  } finally {
    setOutputSink(previous);
  }
  return framesOf(written.join(''));
}

describe('every frame fits the terminal', () => {
  it('for any width from 20 to 200 and any user text (property)', () => {
    fc.assert(
      fc.property(
        fc.array(lineOf, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 20, max: 200 }),
        (lines, columns) => {
          const frames = drawn(lines, columns);
          expect(frames.length).toBeGreaterThanOrEqual(lines.length);
          for (const frame of frames) expect(displayWidth(frame), frame).toBeLessThanOrEqual(columns - 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after a resize, the line is drawn again at the new width (property)', () => {
    fc.assert(
      fc.property(
        lineOf,
        fc.integer({ min: 20, max: 200 }),
        fc.integer({ min: 20, max: 200 }),
        (line, before, after) => {
          const frames = drawn([line, line], before, after);
          // The first frame at the old width, every frame after the resize at the new one.
          expect(displayWidth(frames[0] ?? '')).toBeLessThanOrEqual(before - 1);
          for (const frame of frames.slice(1))
            expect(displayWidth(frame), frame).toBeLessThanOrEqual(after - 1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a line that fits is drawn whole; one that does not drops its last parts first', () => {
    const line = {
      label: 'demo-20261203-999999',
      parts: ['0/3 done', '1 running', 'failed: none', 'spend $0.00 of $1.00', '4s'],
    };
    expect(fitProgress(line, 200)).toBe(
      'demo-20261203-999999: 0/3 done · 1 running · failed: none · spend $0.00 of $1.00 · 4s',
    );
    expect(fitProgress(line, 60)).toBe('demo-20261203-999999: 0/3 done · 1 running · failed: none');
    expect(fitProgress(line, 31)).toBe('demo-20261203-999999: 0/3 done');
    expect(fitProgress(line, 30)).toBe('demo-2…99999: 0/3 done');
    expect(fitProgress(line, 20)).toBe('demo-2…99999: 0/3 …');
  });

  it("the run's phase line on 80 columns: its text cut with …, its ticking seconds kept, never wrapped", () => {
    const frame = fitProgress(
      phaseLine('demo-20261203-999999', 'accept_qualification', performance.now()),
      80,
    );
    expect(frame).toBe('demo-20261203-999999: checking the qualification record against the relea… · 0s');
    expect(displayWidth(frame)).toBe(79);
  });

  it("the run's line on 80 columns keeps the counters, the spend and the clock; it drops what says less", () => {
    const running: CampaignProgress = {
      planned: 3,
      done: 0,
      running: 1,
      resumed: 0,
      byDisposition: {},
      failuresByClass: {},
      observedNanodollars: 4_300_000,
      unknownCostTries: 0,
      unsettledTries: 0,
      ceilingNanodollars: 1_000_000_000,
      etaMs: 4000,
      stopped: null,
    };
    const frame = fitProgress(progressLine('demo-20261203-999999', running, performance.now()), 80);
    expect(frame).toMatch(
      /^demo-20261203-999999: 0\/3 done · spend \$[0-9.]+ of \$1\.00 · 1 running .*· 0s$/,
    );
    expect(displayWidth(frame)).toBeLessThanOrEqual(79);
    for (const columns of [40, 60, 100, 200]) {
      const fitted = fitProgress(progressLine('demo-20261203-999999', running, performance.now()), columns);
      expect(displayWidth(fitted)).toBeLessThanOrEqual(columns - 1);
      expect(fitted.endsWith(' · 0s')).toBe(true);
    }
  });
});

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));
let dir = '';
let store = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-progress-width-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await mkdir(join(dir, 'サイトの出力フォルダ-😀'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the commands on a narrow terminal (in-process, stderr a terminal of set columns)', () => {
  it.each([20, 33, 80])('ingest, grid and publish at %i columns: every frame fits', async (columns) => {
    const book = `${store}-${columns}`;
    const runs = [
      await evalsOnTerminal({ columns }, 'ingest', VALID, '--store', book),
      await evalsOnTerminal({ columns }, 'grid', '--store', book),
      await evalsOnTerminal(
        { columns },
        'publish',
        '--store',
        book,
        '--out',
        join(dir, 'サイトの出力フォルダ-😀', `site-${columns}`),
      ),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      const frames = framesOf(run.stderr);
      expect(frames.length, run.stderr).toBeGreaterThan(0);
      for (const frame of frames) expect(displayWidth(frame), frame).toBeLessThanOrEqual(columns - 1);
    }
  });
});
