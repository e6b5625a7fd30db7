// `evals validate` writes its per-file lines to a pipe or a file a few hundred at a time (one write
// each, not one per file), and to a terminal file by file; the text is the same either way.
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { tempDir, writeBundles } from '@paperclip-evals/test-kit/bundle-files';
import { setOutputSink } from '../src/print.ts';
import { createProgram, runProgram } from '../src/program.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('evals-validate-writes-'));
  await writeBundles(dir, 40);
});
afterEach(() => cleanup());

/** `evals validate DIR` in process, each stdout write kept apart; `terminal`: stdout is a terminal. */
async function validate(terminal: boolean): Promise<{ status: number; writes: string[] }> {
  const writes: string[] = [];
  const previous = setOutputSink({
    write: (stream, text, done) => {
      if (stream === 'stdout') writes.push(text);
      done?.();
    },
    isTerminal: (stream) => terminal && stream === 'stdout',
  });
  try {
    return { status: await runProgram(['node', 'evals', 'validate', dir], createProgram()), writes };
  } finally {
    setOutputSink(previous);
  }
}

describe('evals validate output', () => {
  it('writes the lines of many files to a pipe in one write, then the summary', async () => {
    const { status, writes } = await validate(false);
    expect(status).toBe(0);
    expect(writes).toHaveLength(2);
    expect(writes[0]?.match(/^valid {2}/gm)).toHaveLength(40);
    expect(writes[1]).toBe('\n40 valid, 0 invalid, 0 unreadable\n');
  });

  it('writes each file to a terminal as it is read, the same text', async () => {
    const piped = await validate(false);
    const shown = await validate(true);
    expect(shown.writes).toHaveLength(41);
    // (A terminal may get its labels coloured.)
    expect(stripVTControlCharacters(shown.writes.join(''))).toBe(piped.writes.join(''));
  });
});
