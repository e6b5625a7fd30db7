// shellCommand quotes every word so that a POSIX shell reads back exactly the words given: a path
// with spaces, quotes, `$`, backslashes, globs, non-ASCII letters or a leading dash pastes as itself.
// Checked against a real `sh`, not against the expected quoting.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { shellCommand, shellWord } from '../src/shell-word.ts';

/** The words `sh` reads from `line` (after the command word `printf`). */
function wordsOf(line: string): string[] {
  const result = spawnSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\0').slice(0, -1);
}

describe('shellCommand', () => {
  it.each([
    ['dir with spaces ü/site'],
    ["it's"],
    ['$HOME'],
    ['a\\b'],
    ['*.json'],
    ['--env'],
    [''],
    ['`x`'],
    ['a"b'],
    ['line\nbreak'],
  ])('%j reads back as itself', (word) => {
    expect(wordsOf(shellCommand([word, 'next']))).toEqual([word, 'next']);
  });

  it('leaves a plain word as it is', () => {
    expect(shellWord('runs/2026-11-30.json')).toBe('runs/2026-11-30.json');
    expect(shellCommand(['evals', 'ingest', 'runs/', '--env', 'evalbook.yaml'])).toBe(
      'evals ingest runs/ --env evalbook.yaml',
    );
  });

  it('reads back any words (property, through sh)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 0, maxLength: 12 }).filter((w) => !w.includes('\0')),
          { minLength: 1, maxLength: 4 },
        ),
        (words) => {
          expect(wordsOf(shellCommand(words))).toEqual(words);
        },
      ),
      { numRuns: 40 },
    );
  });
});
