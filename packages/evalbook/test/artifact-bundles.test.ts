// Ingest counts an eval-session artifact's own bundle once: a bundle file an artifact of the same
// run read, met again as an input of its own (a campaign folder walked whole), is `artifactBundles`
// — never a duplicate, never an unverified attempt — once per artifact read of it; a further bare
// input of the same file, an artifact given twice or what the store held before are duplicates.
// The order of the inputs changes none of it (a property over orders and repeats), nor what is
// stored: the attempt keeps its artifact's evidence when the bundle comes first.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ingest } from '../src/ledger/ingest.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { tempDir } from '@paperclip-evals/test-kit/bundle-files';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';

import type { IngestSummary } from '../src/ledger/ingest.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

interface Pair {
  readonly artifact: string;
  readonly bundle: string;
}

/**
 * A try's folder as the eval-session bin leaves it: `<artifactName>` and, in `sub/`, the bundle it
 * references (`sha256` overrides the digest the artifact names).
 */
async function pair(
  name: string,
  options: { artifactName?: string; sub?: string; sha256?: string } = {},
): Promise<Pair> {
  const { artifactName = 'artifact.json', sub = name } = options;
  const folder = join(dir, name);
  await mkdir(join(folder, sub), { recursive: true });
  const bundle = syntheticAttempt({ attemptId: name, costMicros: null });
  const usage = {
    ...(bundle.usage as Record<string, unknown>),
    providerReportedCostNanodollars: null,
    providerReportedCostProvenance: 'unavailable',
    estimatedCostNanodollars: 1000,
    pricingVersion: 'pricing-test',
    costCoverage: 'estimated',
    legacyLedgerCostNanodollars: null,
  };
  const text = `${JSON.stringify({ ...bundle, usage })}\n`;
  const bundlePath = join(folder, sub, 'native-execution.json');
  await writeFile(bundlePath, text);
  const runner = bundle.runner as { binary: { sha256: string }; package: { version: string } };
  const base = upstreamSuccess(name);
  const build = base.build as { package: Record<string, unknown> };
  const artifact = {
    ...base,
    runnerd: { path: '[withheld]', sha256: runner.binary.sha256 },
    build: { ...build, package: { ...build.package, version: runner.package.version } },
    usage: {
      ...(base.usage as Record<string, unknown>),
      ...usage,
      ratesUsdPerMillionTokens: { input: 1.25, cachedInput: 0.125, output: 10 },
    },
    nativeExecution: {
      path: `${sub}/native-execution.json`,
      sha256: options.sha256 ?? `sha256:${createHash('sha256').update(text).digest('hex')}`,
      byteSize: Buffer.byteLength(text),
    },
  };
  const artifactPath = join(folder, artifactName);
  await writeFile(artifactPath, JSON.stringify(artifact));
  return { artifact: artifactPath, bundle: bundlePath };
}

const counts = (summary: IngestSummary) => ({
  inserted: summary.inserted,
  duplicates: summary.duplicates,
  artifactBundles: summary.artifactBundles,
  invalid: summary.invalid.length,
  attemptsRead: summary.artifacts.verified + summary.artifacts.unverified + summary.artifacts.mismatched,
});

/** Whether the stored attempt of `attemptId` was read through its artifact (keeps its evidence). */
async function storedWithArtifact(storeUrl: string, attemptId: string): Promise<boolean | null> {
  const store = await openStore(storeUrl);
  try {
    const stored = await store.getAttempt({
      runId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId,
    });
    return stored === null ? null : stored.record.evalSession !== undefined;
  } finally {
    await store.close();
  }
}

describe('ingest: an artifact and its own bundle in one run', () => {
  it.each([
    ['artifact, then its bundle', (p: Pair) => [p.artifact, p.bundle]],
    ['its bundle, then the artifact', (p: Pair) => [p.bundle, p.artifact]],
  ])('%s: one attempt inserted, the bundle read through its artifact', async (_name, order) => {
    const p = await pair('t1');
    const storeUrl = `sqlite:${join(dir, 'evalbook.sqlite')}`;
    const first = await ingest({ inputs: order(p), storeUrl });
    expect(counts(first)).toEqual({
      inserted: 1,
      duplicates: 0,
      artifactBundles: 1,
      invalid: 0,
      attemptsRead: 1,
    });
    expect(first.processed).toBe(2);
    expect(await storedWithArtifact(storeUrl, 't1')).toBe(true);
    // Again into the store that holds it: the artifact is the duplicate, its bundle still its own.
    const again = await ingest({ inputs: order(p), storeUrl });
    expect(counts(again)).toEqual({
      inserted: 0,
      duplicates: 1,
      artifactBundles: 1,
      invalid: 0,
      attemptsRead: 1,
    });
  });

  it.each([
    // the walk meets output/artifact.json before output/t2/… (a campaign try's folder)
    ['the artifact sorts first', { artifactName: 'artifact.json', sub: 't2' }],
    // z-artifact.json after a/: the walk meets the bundle first
    ['the bundle sorts first', { artifactName: 'z-artifact.json', sub: 'a' }],
  ])('a folder walked whole (%s): counted once, whichever the walk meets first', async (_name, layout) => {
    await pair('t2', layout);
    const storeUrl = `sqlite:${join(dir, 'evalbook.sqlite')}`;
    const summary = await ingest({ inputs: [dir], storeUrl });
    expect(counts(summary)).toEqual({
      inserted: 1,
      duplicates: 0,
      artifactBundles: 1,
      invalid: 0,
      attemptsRead: 1,
    });
    expect(await storedWithArtifact(storeUrl, 't2')).toBe(true);
  });

  it('an artifact that spells its schema with \\u escapes is found as one (bundle first)', async () => {
    const p = await pair('t6');
    const text = await readFile(p.artifact, 'utf8');
    const escaped = text.replace(
      '"paperclip-runner/eval-session-artifact/v1"',
      '"paperclip-runner/eval-session-\\u0061rtifact/v1"',
    );
    expect(escaped).not.toContain('eval-session-artifact');
    await writeFile(p.artifact, escaped);
    const summary = await ingest({
      inputs: [p.bundle, p.artifact],
      storeUrl: `sqlite:${join(dir, 'e.sqlite')}`,
    });
    expect(counts(summary)).toEqual({
      inserted: 1,
      duplicates: 0,
      artifactBundles: 1,
      invalid: 0,
      attemptsRead: 1,
    });
  });

  it('the same folder given twice: the second reading of each attempt is a duplicate', async () => {
    await pair('t3');
    const storeUrl = `sqlite:${join(dir, 'evalbook.sqlite')}`;
    const summary = await ingest({ inputs: [join(dir, 't3'), join(dir, 't3')], storeUrl });
    expect(counts(summary)).toEqual({
      inserted: 1,
      duplicates: 1,
      artifactBundles: 2,
      invalid: 0,
      attemptsRead: 2,
    });
  });

  it('an artifact refused (it names other bytes): its bundle is an attempt of its own, inserted bare', async () => {
    const p = await pair('t4', { sha256: `sha256:${'0'.repeat(64)}` });
    const storeUrl = `sqlite:${join(dir, 'evalbook.sqlite')}`;
    for (const inputs of [
      [p.bundle, p.artifact],
      [p.artifact, p.bundle],
    ]) {
      const summary = await ingest({ inputs, storeUrl: `${storeUrl}.${inputs[0] === p.bundle ? 'b' : 'a'}` });
      expect(counts(summary)).toEqual({
        inserted: 1,
        duplicates: 0,
        artifactBundles: 0,
        invalid: 1,
        attemptsRead: 1,
      });
      expect(summary.invalid[0]?.issues[0]?.code).toBe('native_bundle_digest_mismatch');
    }
  });

  it('a bundle changed after its artifact was written is not its artifact’s bundle', async () => {
    // the artifact names the old bytes (refused); the bare file is judged as what it is
    const p = await pair('t5');
    const bundle = syntheticAttempt({ attemptId: 't5', costMicros: null });
    await writeFile(p.bundle, `${JSON.stringify(bundle)}\n\n`);
    const summary = await ingest({
      inputs: [p.artifact, p.bundle],
      storeUrl: `sqlite:${join(dir, 'e.sqlite')}`,
    });
    expect(counts(summary)).toMatchObject({ inserted: 1, artifactBundles: 0, invalid: 1 });
  });

  it('property: whatever the order and the repeats, the counts follow the model and the artifact’s evidence is kept', async () => {
    const pairs = [await pair('p0'), await pair('p1')];
    const other = join(dir, 'bare.json');
    await writeFile(other, JSON.stringify(syntheticAttempt({ attemptId: 'bare' })));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        // how many times each pair's artifact and bundle are given (0–2), and an order of them all
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })), {
          minLength: 2,
          maxLength: 2,
        }),
        fc.integer({ min: 0, max: 2 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        async (times, bareTimes, keys) => {
          const inputs = [
            ...times.flatMap(([artifacts, bundles], index) => [
              ...Array<string>(artifacts).fill((pairs[index] as Pair).artifact),
              ...Array<string>(bundles).fill((pairs[index] as Pair).bundle),
            ]),
            ...Array<string>(bareTimes).fill(other),
          ];
          if (inputs.length === 0) return;
          const shuffled = inputs
            .map((input) => ({ input, key: keys.next().value as number }))
            .sort((a, b) => a.key - b.key)
            .map(({ input }) => input);
          const storeUrl = `sqlite:${join(dir, `run${run++}.sqlite`)}`;
          const summary = await ingest({ inputs: shuffled, storeUrl });
          // The model: each artifact read takes one bare reading of its bundle; every other reading
          // is an attempt, the first of each inserted, the rest duplicates.
          const model = { inserted: 0, duplicates: 0, artifactBundles: 0, invalid: 0, attemptsRead: 0 };
          for (const [artifacts, bundles] of [...times, [0, bareTimes] as const]) {
            const taken = Math.min(artifacts, bundles);
            const readings = artifacts + bundles - taken;
            model.artifactBundles += taken;
            model.attemptsRead += readings;
            model.inserted += readings > 0 ? 1 : 0;
            model.duplicates += Math.max(0, readings - 1);
          }
          expect(counts(summary), shuffled.join(' ')).toEqual(model);
          for (const [index, [artifacts, bundles]] of times.entries())
            expect(await storedWithArtifact(storeUrl, `p${index}`)).toBe(
              artifacts > 0 ? true : bundles > 0 ? false : null,
            );
        },
      ),
      { numRuns: 30 },
    );
  });
});
