// Each way a release is refused, asserted by the failing check's id and its issue codes: runnerd
// (the gate record says a debug build, or says nothing; one byte changed), SHA256SUMS (a file left out, a listed file missing,
// an extra unlisted file), the package (a root export leaking a test double, undeclared subpaths
// reachable, parsers disagreeing on the seeded fixture, a parser accepting broken bundles, a failing
// conformance run, a PRP range the consumer does not share), runnerd (a script that only prints
// metadata, a bundle whose artifact does not match, a PRP range other than the package's) and the
// App record (a failed check, other digests, sizes or version, not upstream's record). The fake releases are built once and qualified concurrently.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import { qualificationRecordIssues } from '../src/record.ts';
import { APP_RECORD_NAME, RUNNERD_NAME, buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { check, codes, createScratch, notPassing } from './support/harness.ts';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';

import type { QualificationRecord } from '../src/record.ts';
import type { FakeReleaseOptions } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

const edit =
  (path: string, from: string, to: string) =>
  (files: Record<string, string>): void => {
    const before = files[path]!;
    if (!before.includes(from)) throw new Error(`${path} has no ${from}`);
    files[path] = before.replace(from, to);
  };

/** The fake eval-session bin appends a line to this file each time it starts: a test counts them. */
const SPAWN_DIR = mkdtempSync(join(tmpdir(), 'qualification-spawns-'));
const SESSION_COUNTER = join(SPAWN_DIR, 'sessions');
const sessionsStarted = (): number =>
  existsSync(SESSION_COUNTER) ? readFileSync(SESSION_COUNTER, 'utf8').split('\n').filter(Boolean).length : 0;

const VARIANTS = {
  debugRunnerd: { runnerdBuildProfile: 'debug' },
  unstatedProfile: { runnerdBuildProfile: null },
  runnerdByteChanged: { corruptRunnerd: true },
  runnerdLeftOutOfSums: { omitFromSums: [RUNNERD_NAME] },
  extraUnlistedFile: { unlistedFiles: { 'NOTES.txt': 'not listed\n' } },
  leaksTestDouble: { leakTestDouble: true },
  leaksAliasedTestDouble: {
    editFiles: (files) => {
      files['package/dist/index.js'] =
        `${files['package/dist/index.js'] ?? ''}export { DeterministicHarnessDriver as Driver } from './testing.js';\n`;
    },
  },
  prpNoOverlap: {
    prp: { minimumVersion: 2, maximumVersion: 3 },
    runnerdPrp: { minimumVersion: 2, maximumVersion: 3 },
  },
  wildcardExports: {
    editFiles: edit('package/package.json', `"./evals": {`, `"./*": "./*",\n    "./evals": {`),
  },
  parserRejectsFixture: {
    editFiles: edit(
      'package/dist/evals/index.js',
      '!(value.schema === NATIVE_EXECUTION_V1)',
      '!(value.schema === "nope")',
    ),
  },
  strayRejection: {
    editFiles: edit(
      'package/dist/testing.js',
      '  return {',
      "  Promise.reject(new Error('stray'));\n  await new Promise((done) => setTimeout(done, 10));\n  return {",
    ),
  },
  conformanceFails: {
    editFiles: edit('package/dist/testing.js', 'sessionRecovery: true', 'sessionRecovery: false'),
  },
  parserAcceptsAnything: {
    editFiles: edit(
      'package/dist/evals/index.js',
      'export function parsePaperclipNativeExecution(value) {',
      'export function parsePaperclipNativeExecution(value) {\n  if (value !== undefined) return value;',
    ),
  },
  noEvalSessionBin: { evalSessionBin: false },
  runnerdPrpDisjoint: {
    runnerdPrp: { minimumVersion: 7, maximumVersion: 9 },
    sessionCounter: SESSION_COUNTER,
  },
  runnerdBadArtifact: { runnerdKind: 'bad-artifact' },
  runnerdPrpWider: { runnerdPrp: { minimumVersion: 1, maximumVersion: 7 } },
  appRecordCheckFailed: {
    appRecord: (app) => ({
      ...app,
      checks: { ...(app.checks as object), evalMismatchFailedClosed: false, runnerdDigest: null },
    }),
  },
  appRecordChecksArray: {
    appRecord: (app) => ({ ...app, checks: [{ id: 'install', passed: true }] }),
  },
  appRecordOtherRunnerd: {
    appRecord: (app) => {
      const artifacts = app.artifacts as { runnerd: object };
      return {
        ...app,
        artifacts: { ...artifacts, runnerd: { ...artifacts.runnerd, sha256: `sha256:${'0'.repeat(64)}` } },
      };
    },
  },
  appRecordOtherTarballAndVersion: {
    appRecord: (app) => {
      const artifacts = app.artifacts as { package: object };
      const checks = app.checks as { evalCompatibility: object };
      return {
        ...app,
        artifacts: {
          ...artifacts,
          package: { ...artifacts.package, sha256: `sha256:${'1'.repeat(64)}`, byteSize: 1 },
        },
        checks: { ...checks, evalCompatibility: { ...checks.evalCompatibility, packageVersion: '9.9.9' } },
      };
    },
  },
  appRecordOldShape: {
    appRecord: (app) => ({ ...app, schema: 'paperclip-runner/consumer-conformance/v1', passed: true }),
  },
  appRecordHello: { appRecord: () => '{"hello":1}\n' },
} satisfies Record<string, FakeReleaseOptions>;

type Variant = keyof typeof VARIANTS;

let scratch: Scratch;
const records = new Map<string, QualificationRecord>();
const record = (variant: Variant | 'listedFileMissing'): QualificationRecord => records.get(variant)!;

beforeAll(async () => {
  scratch = await createScratch('refusals');
  const builds = Object.entries(VARIANTS).map(async ([name, options]) => {
    const release = await buildFakeRelease(join(scratch.releases, name), options);
    records.set(
      name,
      await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, pnpm: testPnpm() }),
    );
  });
  const listedFileMissing = (async () => {
    const release = await buildFakeRelease(join(scratch.releases, 'listedFileMissing'));
    await rm(join(release.dir, APP_RECORD_NAME));
    records.set(
      'listedFileMissing',
      await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work, pnpm: testPnpm() }),
    );
  })();
  await Promise.all([...builds, listedFileMissing]);
});

afterAll(async () => {
  await scratch.remove();
  rmSync(SPAWN_DIR, { recursive: true, force: true });
});

describe('every refused release', () => {
  it('gets a schema-valid record with qualified: false', () => {
    for (const [name, refused] of records) {
      expect(refused.qualified, name).toBe(false);
      expect(qualificationRecordIssues(refused), name).toEqual([]);
    }
  });

  it('leaves no temporary directory behind', async () => {
    expect(await scratch.leftovers()).toEqual([]);
  });
});

describe("when the gate's record says runnerd is a debug build", () => {
  it('refuses it at app-record with build_profile_not_release, and nothing else', () => {
    expect(notPassing(record('debugRunnerd'))).toEqual(['app-record:fail']);
    const issue = check(record('debugRunnerd'), 'app-record').issues![0]!;
    expect(issue).toMatchObject({
      code: 'build_profile_not_release',
      path: '/artifacts/runnerd/buildProfile',
      expected: 'release',
      received: 'debug',
    });
    expect(issue.message).toMatch(/"debug" build/);
    expect(record('debugRunnerd').runnerd.buildProfile).toBe('debug');
  });
});

describe("when the gate's record states no build profile for runnerd", () => {
  it('refuses it: only a release build the gate vouches for qualifies', () => {
    expect(notPassing(record('unstatedProfile'))).toEqual(['app-record:fail']);
    expect(check(record('unstatedProfile'), 'app-record').issues![0]).toMatchObject({
      code: 'build_profile_not_release',
      received: 'missing',
    });
    expect(record('unstatedProfile').runnerd.buildProfile).toBeNull();
  });
});

describe('when one byte of runnerd changed after SHA256SUMS was written', () => {
  it('fails sha256sums with digest_mismatch naming runnerd', () => {
    expect(check(record('runnerdByteChanged'), 'sha256sums').issues).toEqual([
      expect.objectContaining({ code: 'digest_mismatch', file: RUNNERD_NAME }),
    ]);
  });

  it('skips runnerd-resolve (never executing it) and negotiation, "needs sha256sums"', () => {
    for (const id of ['runnerd-resolve', 'negotiation'] as const) {
      expect(check(record('runnerdByteChanged'), id)).toMatchObject({
        status: 'skipped',
        detail: `needs sha256sums: ${RUNNERD_NAME} does not match its SHA256SUMS digest, so nothing of it is used`,
      });
    }
    expect(record('runnerdByteChanged').runnerd.buildMetadata).toBeNull();
  });
});

describe('when SHA256SUMS leaves runnerd out', () => {
  it('fails sha256sums with file_unlisted naming runnerd', () => {
    expect(check(record('runnerdLeftOutOfSums'), 'sha256sums').issues).toEqual([
      expect.objectContaining({ code: 'file_unlisted', file: RUNNERD_NAME }),
    ]);
  });

  it('skips runnerd-resolve, saying there is no digest to resolve it by', () => {
    expect(check(record('runnerdLeftOutOfSums'), 'runnerd-resolve')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining(`SHA256SUMS gives no digest for ${RUNNERD_NAME}`) as unknown,
    });
  });

  it('skips what needs runnerd-resolve with the same reason: a skip names the first check that gave nothing', () => {
    const reason = `needs sha256sums: SHA256SUMS gives no digest for ${RUNNERD_NAME}`;
    for (const id of [
      'runnerd-resolve',
      'runnerd-eval-session',
      'negotiation',
      'negotiation-fails-closed',
    ] as const) {
      expect(check(record('runnerdLeftOutOfSums'), id), id).toMatchObject({
        status: 'skipped',
        detail: reason,
      });
    }
  });
});

describe('when a file SHA256SUMS lists is missing', () => {
  it('fails sha256sums with file_missing, and release-layout with app_record_missing', () => {
    expect(check(record('listedFileMissing'), 'sha256sums').issues).toEqual([
      expect.objectContaining({ code: 'file_missing', file: APP_RECORD_NAME }),
    ]);
    expect(codes(record('listedFileMissing'), 'release-layout')).toEqual(['app_record_missing']);
  });
});

describe('when the directory holds a file SHA256SUMS does not list', () => {
  it('fails sha256sums with file_unlisted naming it, ignoring nothing', () => {
    expect(notPassing(record('extraUnlistedFile'))).toEqual(['sha256sums:fail']);
    expect(check(record('extraUnlistedFile'), 'sha256sums').issues).toEqual([
      expect.objectContaining({ code: 'file_unlisted', file: 'NOTES.txt' }),
    ]);
  });
});

describe("when the root entry point re-exports ./testing's driver", () => {
  it("fails root-exports by name (./testing re-exporting the root, as upstream's does, is no leak)", () => {
    expect(notPassing(record('leaksTestDouble'))).toEqual(['root-exports:fail']);
    expect(check(record('leaksTestDouble'), 'root-exports').issues).toEqual([
      expect.objectContaining({ code: 'root_export_test_double', received: 'DeterministicHarnessDriver' }),
    ]);
  });

  it('fails root-exports by identity when the root renames it', () => {
    expect(notPassing(record('leaksAliasedTestDouble'))).toEqual(['root-exports:fail']);
    expect(check(record('leaksAliasedTestDouble'), 'root-exports').issues).toEqual([
      expect.objectContaining({
        code: 'root_export_shared_with_testing',
        received: { name: 'Driver', sameAsTesting: ['DeterministicHarnessDriver', 'Driver'] },
      }),
    ]);
  });
});

describe("when the package's PRP range does not overlap the consumer's", () => {
  it('fails negotiation with prp_version_no_overlap, and starts no eval session', () => {
    expect(notPassing(record('prpNoOverlap'))).toEqual(['negotiation:fail', 'runnerd-eval-session:skipped']);
    expect(codes(record('prpNoOverlap'), 'negotiation')).toContain('prp_version_no_overlap');
    expect(record('prpNoOverlap').receipt).toBeNull();
  });

  it('still proves the negotiator fails closed', () => {
    expect(check(record('prpNoOverlap'), 'negotiation-fails-closed').status).toBe('pass');
  });
});

describe('when a wildcard export makes built files reachable', () => {
  it('fails undeclared-subpaths for every path that loaded', () => {
    expect(notPassing(record('wildcardExports'))).toEqual(['undeclared-subpaths:fail']);
    const issues = check(record('wildcardExports'), 'undeclared-subpaths').issues!;
    expect(issues.map((issue) => issue.component)).toContain('@paperclipai/paperclip-runner/dist/testing.js');
    expect(new Set(issues.map((issue) => issue.code))).toEqual(new Set(['undeclared_subpath_not_refused']));
  });
});

describe("when the package's parser rejects its own seeded fixture", () => {
  it("fails native-execution-fixture: its own loader (which parses, as upstream's does) refuses it", () => {
    expect(notPassing(record('parserRejectsFixture'))).toEqual(['native-execution-fixture:fail']);
    expect(check(record('parserRejectsFixture'), 'native-execution-fixture').issues).toEqual([
      expect.objectContaining({
        code: 'fixture_unavailable',
        message: expect.stringContaining('bundle.schema: unsupported schema') as unknown,
      }),
    ]);
  });
});

describe('when the package leaves a promise rejection unhandled', () => {
  it('fails consumer-probe with package_unhandled_rejection, and still judges the rest', () => {
    expect(notPassing(record('strayRejection'))).toEqual(['consumer-probe:fail']);
    expect(check(record('strayRejection'), 'consumer-probe').issues).toEqual([
      expect.objectContaining({
        code: 'package_unhandled_rejection',
        message: expect.stringContaining('stray') as unknown,
      }),
    ]);
  });
});

describe('when a conformance check fails', () => {
  it('fails driver-conformance naming the check', () => {
    expect(notPassing(record('conformanceFails'))).toEqual(['driver-conformance:fail']);
    expect(check(record('conformanceFails'), 'driver-conformance').issues).toEqual([
      expect.objectContaining({ code: 'conformance_check_failed', component: 'sessionRecovery' }),
    ]);
  });
});

describe("when the package's parser accepts anything", () => {
  it('fails native-execution-fixture: every broken variant Evals refuses was accepted', () => {
    expect(notPassing(record('parserAcceptsAnything'))).toEqual(['native-execution-fixture:fail']);
    const issues = check(record('parserAcceptsAnything'), 'native-execution-fixture').issues!;
    expect(issues.map((issue) => issue.code)).toEqual([
      'package_parser_accepts_broken',
      'package_parser_accepts_broken',
      'package_parser_accepts_broken',
    ]);
    expect(issues.map((issue) => issue.message).join('\n')).toMatch(
      /usage-total-tokens-off-by-one[\s\S]*run-terminal-event-removed[\s\S]*denial-removed/,
    );
    expect(issues[0]!.expected).toEqual({ invalid: ['usage_total_mismatch'] });
  });
});

describe('when runnerd speaks no PRP version the package speaks', () => {
  it('refuses it, naming the PRP mismatch, and starts no eval session at all', () => {
    const refused = record('runnerdPrpDisjoint');
    expect(refused.qualified).toBe(false);
    expect(codes(refused, 'runnerd-resolve')).toContain('runnerd_prp_range_mismatch');
    expect(codes(refused, 'negotiation')).toContain('prp_version_no_overlap');
    expect(check(refused, 'runnerd-eval-session')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('needs negotiation: the join does not hold') as unknown,
    });
    expect(sessionsStarted()).toBe(0);
  });

  it('the counting bin does count: the good release with it starts one session', async () => {
    const release = await buildFakeRelease(join(scratch.releases, 'counted'), {
      sessionCounter: SESSION_COUNTER,
    });
    const counted = await qualifyRelease({
      releaseDir: release.dir,
      tempDir: scratch.work,
      pnpm: testPnpm(),
    });
    expect(check(counted, 'runnerd-eval-session').status).toBe('pass');
    expect(sessionsStarted()).toBe(1);
    rmSync(SESSION_COUNTER, { force: true });
  }, 120_000);
});

describe('when the package ships no paperclip-runner-eval-session bin', () => {
  it('refuses it at runnerd-eval-session, naming the missing bin', () => {
    expect(notPassing(record('noEvalSessionBin'))).toEqual(['runnerd-eval-session:fail']);
    expect(check(record('noEvalSessionBin'), 'runnerd-eval-session').issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_bin_missing',
        path: '/bin/paperclip-runner-eval-session',
      }),
    ]);
  });
});

describe('when the eval-session bundle states digests its files do not have', () => {
  it('fails runnerd-eval-session naming each artifact', () => {
    expect(notPassing(record('runnerdBadArtifact'))).toEqual(['runnerd-eval-session:fail']);
    const issues = check(record('runnerdBadArtifact'), 'runnerd-eval-session').issues!;
    // Each file is a byte longer than stated: refused by its size before it is read or hashed
    // (node's checkContainedReference), so the size is what is named, never a digest.
    expect(new Set(issues.map((issue) => issue.code))).toEqual(new Set(['eval_session_file_size_mismatch']));
    expect(issues.map((issue) => issue.path)).toContain('/artifacts/0/byteSize');
    expect(issues.map((issue) => issue.path)).not.toContain('/transcript/byteSize');
  });
});

describe("when runnerd's PRP range is not the package's", () => {
  it('fails runnerd-resolve with runnerd_prp_range_mismatch', () => {
    expect(notPassing(record('runnerdPrpWider'))).toContain('runnerd-resolve:fail');
    expect(check(record('runnerdPrpWider'), 'runnerd-resolve').issues).toEqual([
      expect.objectContaining({
        code: 'runnerd_prp_range_mismatch',
        expected: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
        received: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 7 },
      }),
    ]);
  });
});

describe("when the App's record does not agree with the release", () => {
  it('refuses a record whose checks did not all pass, naming each', () => {
    expect(notPassing(record('appRecordCheckFailed'))).toEqual(['app-record:fail']);
    expect(check(record('appRecordCheckFailed'), 'app-record').issues).toEqual([
      expect.objectContaining({ code: 'app_record_check_failed', path: '/checks/evalMismatchFailedClosed' }),
      expect.objectContaining({ code: 'app_record_check_failed', path: '/checks/runnerdDigest' }),
    ]);
  });

  it('refuses checks that are not an object of checks', () => {
    expect(codes(record('appRecordChecksArray'), 'app-record')).toEqual([
      'app_record_checks_missing',
      'app_record_version_mismatch',
    ]);
  });

  it('refuses a record naming another runnerd digest, and then does not take its build profile', () => {
    expect(notPassing(record('appRecordOtherRunnerd'))).toEqual(['app-record:fail']);
    expect(codes(record('appRecordOtherRunnerd'), 'app-record')).toEqual([
      'app_record_runnerd_digest_mismatch',
    ]);
    expect(record('appRecordOtherRunnerd').runnerd.buildProfile).toBeNull();
  });

  it('refuses a record naming another tarball digest, size and package version', () => {
    expect(codes(record('appRecordOtherTarballAndVersion'), 'app-record')).toEqual([
      'app_record_version_mismatch',
      'app_record_tarball_digest_mismatch',
      'app_record_tarball_size_mismatch',
    ]);
  });

  it("refuses our old consumer-conformance/v1 record and any JSON object that is not upstream's record", () => {
    for (const name of ['appRecordOldShape', 'appRecordHello'] as const) {
      expect(notPassing(record(name)), name).toEqual(['app-record:fail']);
      expect(codes(record(name), 'app-record'), name).toEqual(['app_record_schema_unknown']);
    }
  });
});
