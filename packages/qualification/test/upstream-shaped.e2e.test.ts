// Issue 17's must-show, through the real `evals qualify` binary: a release shaped exactly like
// upstream's (support/fake-release.ts: a small synthetic package, not our reference runner, with
// upstream's export names and conditions, protocol paths, a runnerd that prints upstream's build
// metadata fields and nothing more, SHA256SUMS and upstream's clean-consumer-conformance/v1 gate
// record) qualifies; the same release with a semantic catalog, PRP or driver mismatch is refused
// with every issue of the join listed, and no eval session starts: runnerd appends a line to a
// counter file each time it is run for anything but --build-metadata, and for a refused release the
// file is never written.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ALWAYS_PROBED_SUBPATHS, DOCUMENTED_EXPORTS, PROTOCOL_FILES } from '../src/judgements.ts';
import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';
import {
  STALE_CATALOG_DIGEST,
  buildFakeRelease,
  fakePackageFiles,
  runnerdBuildMetadata,
} from '@paperclip-evals/test-kit/fake-release';
import { check, codes, createScratch, notPassing } from './support/harness.ts';

import type { QualificationRecord } from '../src/record.ts';
import type { FakeReleaseOptions } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

const EVALS = join(REPO_ROOT, 'node_modules/.bin/evals');

const CASES = {
  upstream: {},
  catalogMismatch: { staleCatalogDigest: true },
  prpMismatch: { runnerdPrp: { minimumVersion: 2, maximumVersion: 2 } },
  driverMismatch: { driverProtocolVersion: 'prp.v2' },
} satisfies Record<string, FakeReleaseOptions>;

type Case = keyof typeof CASES;

let scratch: Scratch;
const records = new Map<Case, { code: number | null; record: QualificationRecord; stderr: string }>();
const counterOf = (name: Case): string => join(scratch.releases, `${name}.sessions`);
/** The eval sessions the package's paperclip-runner-eval-session bin started for a case (0 when the counter file was never written). */
async function sessions(name: Case): Promise<number> {
  const text = await readFile(counterOf(name), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').length;
}

/**
 * `evals qualify` as the real binary; its consumer install launches the pinned pnpm binary itself
 * (PAPERCLIP_EVALS_PNPM), not npx (about a second of CPU a launch; cli.e2e covers the default).
 */
function qualify(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(EVALS, ['qualify', '--release-dir', dir, '--json'], {
      env: { ...process.env, TMPDIR: scratch.work, PAPERCLIP_EVALS_PNPM: testPnpm().join(' ') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  scratch = await createScratch('upstream-shaped');
  await Promise.all(
    (Object.entries(CASES) as [Case, FakeReleaseOptions][]).map(async ([name, options]) => {
      const release = await buildFakeRelease(join(scratch.releases, name), {
        ...options,
        sessionCounter: counterOf(name),
      });
      const run = await qualify(release.dir);
      records.set(name, {
        code: run.code,
        record: JSON.parse(run.stdout) as QualificationRecord,
        stderr: run.stderr,
      });
    }),
  );
}, 240_000);

afterAll(async () => {
  await scratch.remove();
});

const result = (name: Case): { code: number | null; record: QualificationRecord; stderr: string } =>
  records.get(name)!;

describe('the synthetic release is shaped like upstream’s', () => {
  it('exports exactly the three entry points with types + import, ./testing at dist/testing.js', () => {
    const manifest = JSON.parse(fakePackageFiles()['package/package.json']!) as { exports: unknown };
    expect(manifest.exports).toEqual({
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './testing': { types: './dist/testing.d.ts', import: './dist/testing.js' },
      './evals': { types: './dist/evals/index.d.ts', import: './dist/evals/index.js' },
    });
    expect(ALWAYS_PROBED_SUBPATHS).toEqual(['dist/index.js', 'dist/evals/index.js', 'dist/testing.js']);
  });

  it('ships upstream’s protocol paths, and Evals asks for exactly those', () => {
    const files = Object.keys(fakePackageFiles()).filter((path) => path.startsWith('package/protocol/'));
    expect(files.sort()).toEqual(
      [
        'package/protocol/fixtures/evals/harness-driver-conformance.json',
        'package/protocol/fixtures/evals/native-execution-seeded.json',
        'package/protocol/schemas/native-execution.schema.json',
      ].sort(),
    );
    expect(
      Object.values(PROTOCOL_FILES)
        .map((path) => `package/${path}`)
        .sort(),
    ).toEqual(files.sort());
  });

  it('exports every name Evals asks for, by upstream’s names', () => {
    const files = fakePackageFiles();
    for (const [entry, file] of [
      ['./evals', 'package/dist/evals/index.js'],
      ['./testing', 'package/dist/testing.js'],
    ] as const) {
      for (const name of Object.keys(DOCUMENTED_EXPORTS[entry]))
        expect(files[file], `${entry} ${name}`).toMatch(
          new RegExp(`export (const|function|async function|class) ${name}\\b`),
        );
    }
  });

  it('has a runnerd that prints upstream’s fields and nothing more (no buildProfile)', () => {
    expect(Object.keys(runnerdBuildMetadata()).sort()).toEqual(
      [
        'schema',
        'binaryName',
        'packageName',
        'packageVersion',
        'binaryContractVersion',
        'nativeExecutionVersion',
        'harnessDriverVersion',
        'prp',
        'prpTransportModes',
      ].sort(),
    );
  });
});

describe('evals qualify on the upstream-shaped release', () => {
  it('qualifies it: exit 0, every check passing, one eval session after the join', async () => {
    const { code, record, stderr } = result('upstream');
    expect(notPassing(record), stderr).toEqual([]);
    expect(record.qualified).toBe(true);
    expect(code).toBe(0);
    expect(record.runnerd.buildProfile).toBe('release');
    expect(await sessions('upstream')).toBe(1);
  });
});

describe.each([
  ['catalogMismatch', 'catalog_digest_mismatch', ['semantic-catalog']],
  ['prpMismatch', 'prp_version_no_overlap', ['runnerd-resolve']],
  ['driverMismatch', 'driver_protocol_version_mismatch', []],
] as const)('evals qualify on the release with a %s', (name, issue, alsoFailing) => {
  it(`refuses it (exit 1) with ${issue} among every issue negotiation found`, () => {
    const { code, record } = result(name);
    expect(code).toBe(1);
    expect(record.qualified).toBe(false);
    expect(check(record, 'negotiation').status).toBe('fail');
    expect(codes(record, 'negotiation')).toContain(issue);
    for (const id of alsoFailing) expect(check(record, id).status).toBe('fail');
    expect(record.receipt).toBeNull();
  });

  it('starts no eval session: runnerd-eval-session is skipped and the eval-session bin never started', async () => {
    const { record } = result(name);
    expect(check(record, 'runnerd-eval-session')).toMatchObject({
      status: 'skipped',
      detail: expect.stringMatching(/^needs negotiation: the join does not hold/) as unknown,
    });
    expect(await sessions(name)).toBe(0);
  });
});

describe('the refusals list every issue at once', () => {
  it('a catalog mismatch names the stale digest in both the catalog check and negotiation', () => {
    const { record } = result('catalogMismatch');
    expect(codes(record, 'semantic-catalog')).toEqual(
      expect.arrayContaining(['catalog_digest_mismatch', 'catalog_declared_digest_mismatch']),
    );
    const negotiated = check(record, 'negotiation').issues ?? [];
    expect(negotiated).toContainEqual(
      expect.objectContaining({ code: 'catalog_digest_mismatch', expected: STALE_CATALOG_DIGEST }),
    );
  });

  it('a PRP mismatch also reports that runnerd speaks another range than the package', () => {
    const { record } = result('prpMismatch');
    expect(codes(record, 'runnerd-resolve')).toEqual(['runnerd_prp_range_mismatch']);
    expect(codes(record, 'negotiation')).toContain('prp_version_no_overlap');
  });
});

it('leaves no work directory behind', async () => {
  expect(await scratch.leftovers()).toEqual([]);
});
