// The App record rule, as a mutation table: upstream's clean-consumer-conformance/v1 record that
// names the release Evals saw is accepted; each field flipped is refused with its own code, at its
// JSON pointer; the runnerd build profile is taken only from a record naming that very runnerd.
import { describe, expect, it } from 'vitest';

import { APP_RECORD_SCHEMA, judgeAppRecord } from '../src/app-record.ts';

import type { AppRecordExpectations } from '../src/app-record.ts';

const TARBALL = {
  fileName: 'paperclipai-paperclip-runner-0.0.0.tgz',
  sha256: `sha256:${'a'.repeat(64)}` as const,
  byteSize: 1234,
};
const RUNNERD = {
  fileName: 'paperclip-runnerd-linux-x64',
  sha256: `sha256:${'b'.repeat(64)}` as const,
  byteSize: 99,
};
const EXPECTED: AppRecordExpectations = {
  file: 'paperclip-runner-consumer-conformance.json',
  tarball: TARBALL,
  runnerd: RUNNERD,
  packageVersion: '0.0.0',
};

/* eslint-disable @typescript-eslint/no-unsafe-member-access -- the mutations poke at fixed places of a record. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const good = (): Json => ({
  schema: APP_RECORD_SCHEMA,
  recordedAt: '2026-12-01T00:00:00.000Z',
  sourceCommit: 'c'.repeat(40),
  platform: { os: 'linux', arch: 'x64' },
  artifacts: {
    package: { filename: TARBALL.fileName, sha256: TARBALL.sha256, byteSize: TARBALL.byteSize },
    runnerd: {
      filename: RUNNERD.fileName,
      sha256: RUNNERD.sha256,
      byteSize: RUNNERD.byteSize,
      buildProfile: 'release',
    },
  },
  consumer: {
    installMode: 'offline-packed-artifact',
    imports: [],
    appSourceTreeImports: false,
    providerCalls: 0,
  },
  checks: {
    packageExportsResolved: true,
    evalCompatibility: { schema: 'paperclip-runner/evals-integration/v1', packageVersion: '0.0.0' },
    harnessDriverConformance: { checks: {} },
    runnerdDigest: true,
  },
});

const judge = (record: unknown) =>
  judgeAppRecord(Buffer.from(typeof record === 'string' ? record : JSON.stringify(record)), EXPECTED);

describe('judgeAppRecord', () => {
  it("accepts upstream's record naming the release, and takes its runnerd build profile", () => {
    expect(judge(good())).toEqual({ issues: [], runnerdBuildProfile: 'release' });
  });

  const MUTATIONS: [string, (record: Json) => void, string, string][] = [
    [
      'another tarball name',
      (r) => (r.artifacts.package.filename = 'x.tgz'),
      'app_record_tarball_mismatch',
      '/artifacts/package/filename',
    ],
    [
      'another tarball digest',
      (r) => (r.artifacts.package.sha256 = `sha256:${'0'.repeat(64)}`),
      'app_record_tarball_digest_mismatch',
      '/artifacts/package/sha256',
    ],
    [
      'another tarball size',
      (r) => (r.artifacts.package.byteSize = 1),
      'app_record_tarball_size_mismatch',
      '/artifacts/package/byteSize',
    ],
    [
      'another runnerd name',
      (r) => (r.artifacts.runnerd.filename = 'paperclip-runnerd'),
      'app_record_runnerd_mismatch',
      '/artifacts/runnerd/filename',
    ],
    [
      'another runnerd digest',
      (r) => (r.artifacts.runnerd.sha256 = `sha256:${'0'.repeat(64)}`),
      'app_record_runnerd_digest_mismatch',
      '/artifacts/runnerd/sha256',
    ],
    [
      'another runnerd size',
      (r) => (r.artifacts.runnerd.byteSize = '99'),
      'app_record_runnerd_size_mismatch',
      '/artifacts/runnerd/byteSize',
    ],
    [
      'a debug runnerd',
      (r) => (r.artifacts.runnerd.buildProfile = 'debug'),
      'build_profile_not_release',
      '/artifacts/runnerd/buildProfile',
    ],
    [
      'no build profile',
      (r) => delete r.artifacts.runnerd.buildProfile,
      'build_profile_not_release',
      '/artifacts/runnerd/buildProfile',
    ],
    [
      'a failed check',
      (r) => (r.checks.runnerdDigest = false),
      'app_record_check_failed',
      '/checks/runnerdDigest',
    ],
    [
      'a check that is a string',
      (r) => (r.checks.packageExportsResolved = 'yes'),
      'app_record_check_failed',
      '/checks/packageExportsResolved',
    ],
    [
      'another negotiated version',
      (r) => (r.checks.evalCompatibility.packageVersion = '9.9.9'),
      'app_record_version_mismatch',
      '/checks/evalCompatibility/packageVersion',
    ],
    ['no checks', (r) => (r.checks = {}), 'app_record_checks_missing', '/checks'],
    [
      'our old schema',
      (r) => (r.schema = 'paperclip-runner/consumer-conformance/v1'),
      'app_record_schema_unknown',
      '/schema',
    ],
  ];

  it.each(MUTATIONS)('refuses %s with %s at %s', (_name, mutate, code, path) => {
    const record = good();
    mutate(record);
    const { issues } = judge(record);
    expect(issues.map((issue) => [issue.code, issue.path])).toContainEqual([code, path]);
    expect(issues.every((issue) => issue.file === EXPECTED.file)).toBe(true);
  });

  it('takes no build profile from a record naming another runnerd, nor an unknown one', () => {
    const other = good();
    other.artifacts.runnerd.sha256 = `sha256:${'0'.repeat(64)}`;
    expect(judge(other).runnerdBuildProfile).toBeNull();
    const odd = good();
    odd.artifacts.runnerd.buildProfile = 'fast';
    expect(judge(odd).runnerdBuildProfile).toBeNull();
    const debug = good();
    debug.artifacts.runnerd.buildProfile = 'debug';
    expect(judge(debug).runnerdBuildProfile).toBe('debug');
  });

  it('refuses bytes that are not one strict JSON object', () => {
    expect(judge('[]').issues).toHaveLength(1);
    expect(judge('"hello"').issues).toHaveLength(1);
    expect(judge('{"a":1,"a":2}').issues.length).toBeGreaterThan(0);
  });
});
