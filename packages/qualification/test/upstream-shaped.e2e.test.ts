// Issue 17's must-show, through the real `evals qualify` binary: a release shaped exactly like
// upstream's (support/fake-release.ts: a small synthetic package, not our reference runner, with
// upstream's export names and conditions, protocol paths, a runnerd that prints upstream's build
// metadata fields and nothing more, SHA256SUMS and upstream's clean-consumer-conformance/v1 gate
// record) qualifies; the same release with a semantic catalog, PRP or driver mismatch is refused
// with every issue of the join listed, and no eval session starts: the package's eval-session bin
// appends a line to a counter file each time it starts a session, and a marker line each time it
// starts at all, and for a refused release neither file is written.
// `upstreamBin` is the same release with upstream's own eval-session bin as far as Evals can tell
// (upstreamEvalSessionBinScript: upstream's parser, its five live providers only; upstream's four
// bins): everything passes, the bin refuses Evals' refusal request as upstream's parser does, it
// refuses Evals' offline provider too, so runnerd-eval-session is skipped "needs a provider" — never
// a pass: the release is not qualified (exit 1), and the record and the human table say why.
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

// Upstream's package.json says 0.0.0; its build metadata, runnerd and gate record say the
// compatibility constant (FAKE_VERSION here): the release is negotiated on that one.
const UPSTREAM_VERSIONS = { packageJsonVersion: '0.0.0' } satisfies FakeReleaseOptions;
const CASES = {
  upstream: UPSTREAM_VERSIONS,
  catalogMismatch: { ...UPSTREAM_VERSIONS, staleCatalogDigest: true },
  prpMismatch: { ...UPSTREAM_VERSIONS, runnerdPrp: { minimumVersion: 2, maximumVersion: 2 } },
  driverMismatch: { ...UPSTREAM_VERSIONS, driverProtocolVersion: 'prp.v2' },
  upstreamBin: { ...UPSTREAM_VERSIONS, upstreamEvalSession: true },
} satisfies Record<string, FakeReleaseOptions>;

type Case = keyof typeof CASES;

let scratch: Scratch;
const records = new Map<
  Case,
  { code: number | null; record: QualificationRecord; stderr: string; stdout: string }
>();
const counterOf = (name: Case): string => join(scratch.releases, `${name}.sessions`);
const markerOf = (name: Case): string => join(scratch.releases, `${name}.marker`);
/** How many times the package's eval-session bin started at all (each start marks "eval-session"). */
async function binStarts(name: Case): Promise<number> {
  const text = await readFile(markerOf(name), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line === 'eval-session').length;
}
/** The eval sessions the package's paperclip-runner-eval-session bin started for a case (0 when the counter file was never written). */
async function sessions(name: Case): Promise<number> {
  const text = await readFile(counterOf(name), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').length;
}

/**
 * `evals qualify` as the real binary; its consumer install launches the pinned pnpm binary itself
 * (PAPERCLIP_EVALS_PNPM), not npx (about a second of CPU a launch; cli.e2e covers the default).
 */
function qualify(
  dir: string,
  output: readonly string[] = ['--json'],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(EVALS, ['qualify', '--release-dir', dir, ...output], {
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
        marker: markerOf(name),
      });
      // upstreamBin: the human table on stdout, the record through --out.
      const out = join(scratch.releases, `${name}.record.json`);
      const run = await qualify(release.dir, name === 'upstreamBin' ? ['--out', out] : ['--json']);
      records.set(name, {
        code: run.code,
        record: JSON.parse(
          name === 'upstreamBin' ? await readFile(out, 'utf8') : run.stdout,
        ) as QualificationRecord,
        stderr: run.stderr,
        stdout: run.stdout,
      });
    }),
  );
}, 240_000);

afterAll(async () => {
  await scratch.remove();
});

const result = (
  name: Case,
): { code: number | null; record: QualificationRecord; stderr: string; stdout: string } => records.get(name)!;

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
    // The refusal request, then the session request.
    expect(await binStarts('upstream')).toBe(2);
    expect(check(record, 'runnerd-eval-session').detail).toMatch(
      /refused a request for provider paperclip_evals_unrunnable as upstream's parser does/,
    );
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
    expect(await binStarts(name)).toBe(0);
  });
});

describe("evals qualify on the release whose eval-session bin is upstream's (its live providers only)", () => {
  it("ships upstream's four bins", () => {
    const manifest = JSON.parse(fakePackageFiles(CASES.upstreamBin)['package/package.json']!) as {
      bin: Record<string, string>;
    };
    expect(manifest.bin).toEqual({
      'paperclip-runner-eval-session': './dist/cli/eval-session.js',
      'paperclip-runner-codex-proxy': './dist/cli/codex-app-server-unix-proxy.js',
      'paperclip-runner-opencode-proxy': './dist/cli/opencode-app-server-proxy.js',
      'paperclip-runner-acpx-sidecar': './dist/cli/acpx-runtime-sidecar.js',
    });
  });

  it('fails no check: every check passes but runnerd-eval-session, skipped "needs a provider"', () => {
    const { record, stderr } = result('upstreamBin');
    expect(notPassing(record), stderr).toEqual(['runnerd-eval-session:skipped']);
    const detail = check(record, 'runnerd-eval-session').detail;
    expect(detail).toMatch(
      /^needs a provider: paperclip-runner-eval-session refused Evals' offline provider paperclip_deterministic before any session \(exit 1, nothing written; stderr: "eval-session provider is unsupported by CapabilityLiveSessionService"\)/,
    );
    // What ran offline: upstream's own refusal of a provider no runner supports.
    expect(detail).toMatch(
      /What ran offline holds: paperclip-runner-eval-session refused a request for provider paperclip_evals_unrunnable as upstream's parser does: exit 1, nothing written, no session/,
    );
  });

  it('is not qualified (exit 1): a check that did not run is never a pass', () => {
    const { code, record } = result('upstreamBin');
    expect(record.qualified).toBe(false);
    expect(code).toBe(1);
    expect(record.receipt).not.toBeNull();
  });

  it('the bin ran twice (the refusal, the session request) and started no session', async () => {
    expect(await binStarts('upstreamBin')).toBe(2);
    expect(await sessions('upstreamBin')).toBe(0);
  });

  it('the human table says it is skipped for a provider, and why the release is refused', () => {
    const { stdout } = result('upstreamBin');
    expect(stdout).toMatch(/^refused {2}@paperclipai\/paperclip-runner 0\.0\.0/);
    expect(stdout).toMatch(/\n {2}skip {2}runnerd-eval-session +needs a provider: /);
    expect(stdout).toMatch(/\d+ checks: \d+ passed, 0 failed, 1 skipped\n/);
    expect(stdout).toContain(
      'refused: no check failed, but runnerd-eval-session skipped (see "skip" above: what it needs): what a skipped check would prove is unproven, so the release is not qualified',
    );
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
