// turnIfDue: a loop over readBundles — synchronous reads behind an async iterator — still lets a
// timer (and so a signal's handler) run mid-way, also when it is many short loops back to back;
// a loop over promises that settle at once, without turnIfDue, does not (the control: the rule the
// helper keeps is real on this runtime).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { timerFiresDuring } from '@paperclip-evals/test-kit/event-loop';

import { expandBundleInputs } from '../src/bundle-inputs.ts';
import { readBundles } from '../src/bundle-reads.ts';
import { TURN_EVERY_MS, turnIfDue } from '../src/event-loop-turn.ts';

import type { BundleInput } from '../src/bundle-inputs.ts';

const ATTEMPTS = fileURLToPath(new URL('../../../fixtures/attempts/valid/', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-event-loop-turn-'));
  const text = readFileSync(join(ATTEMPTS, readdirSync(ATTEMPTS).sort()[0] ?? ''));
  for (let index = 0; index < 20; index++) writeFileSync(join(dir, `${index}.json`), text);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('turnIfDue', () => {
  it('a loop of awaits that settle at once starves a timer (the control)', async () => {
    const busy = async (): Promise<void> => {
      const until = performance.now() + 5;
      while (performance.now() < until) await Promise.resolve();
    };
    expect(await timerFiresDuring(busy, 4 * TURN_EVERY_MS)).toBe(false);
  });

  it('the same loop awaiting turnIfDue lets the timer run mid-way', async () => {
    const busy = async (): Promise<void> => {
      const until = performance.now() + 5;
      while (performance.now() < until) await turnIfDue();
    };
    expect(await timerFiresDuring(busy, 4 * TURN_EVERY_MS)).toBe(true);
  });

  it("readBundles over a folder's files, again and again, lets the timer run mid-way", async () => {
    // The folder listed once (its listing is real I/O, a turn of its own): then only the reads.
    const inputs: BundleInput[] = [];
    for await (const input of expandBundleInputs([dir])) inputs.push(input);
    const pass = async (): Promise<void> => {
      for await (const read of readBundles(inputs)) expect(read.status).toBe('valid');
    };
    expect(await timerFiresDuring(pass, 1000)).toBe(true);
  });
});
