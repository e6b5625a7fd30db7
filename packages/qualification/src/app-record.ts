// The app-record check: the App's own record (paperclip-runner-consumer-conformance.json) must
// agree with the release Evals qualified. It is strict JSON declaring upstream's
// paperclip-runner/clean-consumer-conformance/v1; every check in its `checks` object passed (true,
// or the report it produced); its artifacts.package and artifacts.runnerd name the tarball and
// runnerd by the file names, sha256 digests and sizes Evals computed; the package version its
// evalCompatibility receipt names is the tarball's; and it states artifacts.runnerd.buildProfile
// "release". That statement is what proves "never a debug binary": runnerd prints no build profile
// (upstream's does not), the gate that built it records how, and the digest ties that record to the
// very bytes SHA256SUMS lists and Evals ran.
import { readJsonText } from '@paperclip-evals/contract';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { QualificationIssue } from './record.js';

export const APP_RECORD_SCHEMA = 'paperclip-runner/clean-consumer-conformance/v1';
export const MAX_APP_RECORD_BYTES = 4 * 1024 * 1024;

export interface AppRecordArtifact {
  readonly fileName: string;
  readonly sha256: Sha256Digest;
  readonly byteSize: number;
}

export interface AppRecordExpectations {
  readonly file: string;
  readonly tarball: AppRecordArtifact;
  readonly runnerd: AppRecordArtifact;
  readonly packageVersion: string;
}

export interface AppRecordJudgement {
  readonly issues: QualificationIssue[];
  /** artifacts.runnerd.buildProfile, when the record names this very runnerd; null otherwise. */
  readonly runnerdBuildProfile: 'release' | 'debug' | null;
}

/** Every way the App record's bytes disagree with the release ([] when they agree). */
export function appRecordIssues(bytes: Uint8Array, expected: AppRecordExpectations): QualificationIssue[] {
  return judgeAppRecord(bytes, expected).issues;
}

/** The App record judged against the release, and the build profile it states for runnerd. */
export function judgeAppRecord(bytes: Uint8Array, expected: AppRecordExpectations): AppRecordJudgement {
  const file = expected.file;
  const none = (issues: QualificationIssue[]): AppRecordJudgement => ({ issues, runnerdBuildProfile: null });
  const text = readJsonText(bytes, { maxBytes: MAX_APP_RECORD_BYTES });
  if (!text.ok) return none(text.issues.map((issue) => ({ ...issue, file })));
  const record = text.value;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return none([{ code: 'app_record_not_object', message: `${file} is not a JSON object`, path: '', file }]);
  }
  const value = record as Record<string, unknown>;
  if (value.schema !== APP_RECORD_SCHEMA) {
    return none([
      {
        code: 'app_record_schema_unknown',
        message: `${file} does not declare ${APP_RECORD_SCHEMA}`,
        path: '/schema',
        file,
        expected: APP_RECORD_SCHEMA,
        received: value.schema ?? 'missing',
      },
    ]);
  }
  const issues: QualificationIssue[] = [];
  const at = (path: string): unknown =>
    path
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (node, key) =>
          typeof node === 'object' && node !== null && !Array.isArray(node)
            ? (node as Record<string, unknown>)[key]
            : undefined,
        value,
      );
  const expect = (code: string, path: string, want: unknown, message: string): void => {
    const got = at(path);
    if (got !== want) issues.push({ code, message, path, file, expected: want, received: got ?? 'missing' });
  };
  const checks = value.checks;
  const entries =
    typeof checks === 'object' && checks !== null && !Array.isArray(checks) ? Object.entries(checks) : [];
  if (entries.length === 0) {
    issues.push({
      code: 'app_record_checks_missing',
      message: `${file} lists no checks`,
      path: '/checks',
      file,
      expected: 'an object of checks, each true or the report it produced',
      received: Array.isArray(checks) ? 'an array' : (checks ?? 'missing'),
    });
  }
  for (const [name, result] of entries) {
    if (result === true || (typeof result === 'object' && result !== null && !Array.isArray(result)))
      continue;
    issues.push({
      code: 'app_record_check_failed',
      message: `${file}: check ${name} did not pass`,
      path: `/checks/${name}`,
      file,
      expected: 'true, or the report the check produced',
      received: result ?? null,
    });
  }
  expect(
    'app_record_version_mismatch',
    '/checks/evalCompatibility/packageVersion',
    expected.packageVersion,
    `${file} negotiated another package version than the tarball's`,
  );
  for (const [name, artifact] of [
    ['package', expected.tarball],
    ['runnerd', expected.runnerd],
  ] as const) {
    const what = name === 'package' ? 'tarball' : 'runnerd';
    expect(
      `app_record_${what}_mismatch`,
      `/artifacts/${name}/filename`,
      artifact.fileName,
      `${file} names another ${what}`,
    );
    expect(
      `app_record_${what}_digest_mismatch`,
      `/artifacts/${name}/sha256`,
      artifact.sha256,
      `${file} names another ${what} digest than the one Evals computed`,
    );
    expect(
      `app_record_${what}_size_mismatch`,
      `/artifacts/${name}/byteSize`,
      artifact.byteSize,
      `${file} names another ${what} size than the file has`,
    );
  }
  const profile = at('/artifacts/runnerd/buildProfile');
  if (profile !== 'release') {
    issues.push({
      code: 'build_profile_not_release',
      message:
        profile === undefined
          ? `${file} does not state how ${expected.runnerd.fileName} was built; only a release build qualifies`
          : `${file} states ${expected.runnerd.fileName} is a ${JSON.stringify(profile)} build; only a release build qualifies`,
      path: '/artifacts/runnerd/buildProfile',
      file,
      component: 'runnerd',
      expected: 'release',
      received: profile ?? 'missing',
    });
  }
  const namesThisRunnerd = at('/artifacts/runnerd/sha256') === expected.runnerd.sha256;
  return {
    issues,
    runnerdBuildProfile: namesThisRunnerd && (profile === 'release' || profile === 'debug') ? profile : null,
  };
}
