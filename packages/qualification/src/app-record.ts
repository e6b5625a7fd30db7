// The app-record check: the App's own record (paperclip-runner-consumer-conformance.json) must
// agree with the release Evals qualified. It is strict JSON declaring
// paperclip-runner/consumer-conformance/v1, it passed, every check in it passed, and the tarball
// digest, runnerd digest and package version it names are the ones Evals computed itself.
import { readJsonText } from '@paperclip-evals/contract';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { QualificationIssue } from './record.js';

export const APP_RECORD_SCHEMA = 'paperclip-runner/consumer-conformance/v1';
const MAX_APP_RECORD_BYTES = 4 * 1024 * 1024;

export interface AppRecordExpectations {
  readonly file: string;
  readonly tarball: { readonly fileName: string; readonly sha256: Sha256Digest };
  readonly runnerd: { readonly fileName: string; readonly sha256: Sha256Digest };
  readonly packageVersion: string;
}

/** Every way the App record's bytes disagree with the release ([] when they agree). */
export function appRecordIssues(bytes: Uint8Array, expected: AppRecordExpectations): QualificationIssue[] {
  const file = expected.file;
  const text = readJsonText(bytes, { maxBytes: MAX_APP_RECORD_BYTES });
  if (!text.ok) return text.issues.map((issue) => ({ ...issue, file }));
  const record = text.value;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return [{ code: 'app_record_not_object', message: `${file} is not a JSON object`, path: '', file }];
  }
  const value = record as Record<string, unknown>;
  if (value.schema !== APP_RECORD_SCHEMA) {
    return [
      {
        code: 'app_record_schema_unknown',
        message: `${file} does not declare ${APP_RECORD_SCHEMA}`,
        path: '/schema',
        file,
        expected: APP_RECORD_SCHEMA,
        received: value.schema ?? 'missing',
      },
    ];
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
  expect('app_record_not_passed', '/passed', true, `${file} does not say passed: true`);
  const checks = value.checks;
  if (!Array.isArray(checks) || checks.length === 0) {
    issues.push({
      code: 'app_record_checks_missing',
      message: `${file} lists no checks`,
      path: '/checks',
      file,
      expected: 'a non-empty array of checks',
      received: Array.isArray(checks) ? 'an empty array' : (checks ?? 'missing'),
    });
  } else {
    checks.forEach((check, index) => {
      const passed = typeof check === 'object' && check !== null && (check as { passed?: unknown }).passed;
      if (passed !== true) {
        const id = typeof check === 'object' && check !== null ? (check as { id?: unknown }).id : undefined;
        issues.push({
          code: 'app_record_check_failed',
          message: `${file}: check ${typeof id === 'string' ? id : `#${index}`} did not pass`,
          path: `/checks/${index}/passed`,
          file,
          expected: true,
          received: passed ?? 'missing',
        });
      }
    });
  }
  expect(
    'app_record_version_mismatch',
    '/package/version',
    expected.packageVersion,
    `${file} names another package version than the tarball's`,
  );
  expect(
    'app_record_tarball_mismatch',
    '/tarball/fileName',
    expected.tarball.fileName,
    `${file} names another tarball`,
  );
  expect(
    'app_record_tarball_digest_mismatch',
    '/tarball/sha256',
    expected.tarball.sha256,
    `${file} names another tarball digest than the one Evals computed`,
  );
  expect(
    'app_record_runnerd_mismatch',
    '/runnerd/fileName',
    expected.runnerd.fileName,
    `${file} names another runnerd`,
  );
  expect(
    'app_record_runnerd_digest_mismatch',
    '/runnerd/sha256',
    expected.runnerd.sha256,
    `${file} names another runnerd digest than the one Evals computed`,
  );
  return issues;
}
