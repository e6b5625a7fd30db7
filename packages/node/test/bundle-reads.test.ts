// The one read-and-classify loop: every input comes back once, in input order, whatever the
// read-ahead, classified valid (parsed and hashed), invalid (the ContractError with its issues) or
// unreadable (the expander's refusal, an fs error's message); stdin is read at its turn.
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { sha256Digest } from '@paperclip-evals/contract';

import { expandBundleInputs } from '../src/bundle-inputs.ts';
import { readBundles } from '../src/bundle-reads.ts';

import type { BundleInput } from '../src/bundle-inputs.ts';
import type { BundleRead } from '../src/bundle-reads.ts';

const ATTEMPTS = fileURLToPath(new URL('../../../fixtures/attempts/', import.meta.url));
const VALID = join(ATTEMPTS, 'valid', readdirSync(join(ATTEMPTS, 'valid')).sort()[0] ?? '');
const INVALID = join(ATTEMPTS, 'invalid', readdirSync(join(ATTEMPTS, 'invalid')).sort()[0] ?? '');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-bundle-reads-'));
  symlinkSync(VALID, join(dir, 'link.json'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function all(reads: AsyncIterable<BundleRead>): Promise<BundleRead[]> {
  const out: BundleRead[] = [];
  for await (const read of reads) out.push(read);
  return out;
}

describe('readBundles', () => {
  it('classifies a valid, an invalid, a missing and a refused input, in order', async () => {
    const inputs = [VALID, INVALID, join(dir, 'missing.json'), dir];
    const reads = await all(readBundles(expandBundleInputs(inputs)));
    expect(reads.map((read) => read.status)).toEqual(['valid', 'invalid', 'unreadable', 'unreadable']);
    const [valid, invalid, missing, refused] = reads;
    expect(valid).toMatchObject({ parsed: { fileSha256: sha256Digest(readFileSync(VALID)) } });
    expect(invalid).toMatchObject({ error: { code: 'paperclip_native_execution_invalid' } });
    expect(invalid?.status === 'invalid' && invalid.error.issues.length).toBeGreaterThan(0);
    expect(missing).toMatchObject({ error: expect.stringMatching(/ENOENT/) as unknown });
    expect(refused).toMatchObject({ error: expect.stringMatching(/symlink inside a directory/) as unknown });
  });

  it('reads stdin at its turn, under the same size limit', async () => {
    const bytes = readFileSync(VALID);
    const stdin = (): AsyncIterable<Uint8Array> => Readable.from([bytes]);
    const reads = await all(readBundles(expandBundleInputs(['-', VALID]), { stdin }));
    expect(reads.map((read) => [read.input.display, read.status])).toEqual([
      ['(stdin)', 'valid'],
      [VALID, 'valid'],
    ]);
    const small = await all(readBundles(expandBundleInputs(['-']), { stdin, maxBytes: 10 }));
    expect(small[0]).toMatchObject({ status: 'invalid', error: { issues: [{ code: 'input_too_large' }] } });
  });

  it('gives every input back once, in input order, whatever the read-ahead', async () => {
    const pool = [VALID, INVALID, join(dir, 'missing.json')];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...pool), { maxLength: 12 }),
        fc.nat(6),
        async (paths, readAhead) => {
          const inputs: BundleInput[] = paths.map((path, index) => ({ display: `${index}`, path }));
          const reads = await all(readBundles(inputs, { readAhead }));
          expect(reads.map((read) => read.input.display)).toEqual(inputs.map((input) => input.display));
          expect(reads.map((read) => read.status)).toEqual(
            paths.map((path) => (path === VALID ? 'valid' : path === INVALID ? 'invalid' : 'unreadable')),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
