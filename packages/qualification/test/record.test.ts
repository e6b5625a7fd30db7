// The evals-qualification/v1 JSON Schema: compiled by the strict registry, and holding a record to
// its invariants (qualified exactly when every check passed; issues exactly on failed checks; every
// check once, in order).
import { SCHEMA_IDS, createSchemaAjv } from '@paperclip-evals/contract';
import { describe, expect, it } from 'vitest';

import {
  QUALIFICATION_CHECK_IDS,
  QUALIFICATION_RECORD_V1_SCHEMA_ID,
  qualificationRecordIssues,
} from '../src/record.ts';

import { qualificationRecord } from '@paperclip-evals/test-kit/qualification-record';

import type { QualificationRecord } from '../src/record.ts';

const qualified = (): QualificationRecord => qualificationRecord();

const withCheck = (
  record: QualificationRecord,
  index: number,
  check: Record<string, unknown>,
): Record<string, unknown> => ({
  ...record,
  checks: record.checks.map((c, at) => (at === index ? check : c)),
});

describe('the qualification record schema', () => {
  it('compiles in the strict registry, beside the contract schemas', () => {
    const ajv = createSchemaAjv();
    expect(typeof ajv.getSchema(QUALIFICATION_RECORD_V1_SCHEMA_ID)).toBe('function');
    expect(typeof ajv.getSchema(SCHEMA_IDS.consumerRequirementsV1)).toBe('function');
  });

  it('accepts a qualified record', () => {
    expect(qualificationRecordIssues(qualified())).toEqual([]);
  });

  it('refuses qualified: true beside a failed check', () => {
    const record = withCheck(qualified(), 3, {
      id: QUALIFICATION_CHECK_IDS[3],
      status: 'fail',
      detail: 'x',
      issues: [{ code: 'x', message: 'y' }],
    });
    expect(qualificationRecordIssues(record).length).toBeGreaterThan(0);
    expect(qualificationRecordIssues({ ...record, qualified: false, receipt: null })).toEqual([]);
  });

  it('refuses qualified: false when every check passed, and qualified: true with no receipt', () => {
    expect(qualificationRecordIssues({ ...qualified(), qualified: false }).length).toBeGreaterThan(0);
    expect(qualificationRecordIssues({ ...qualified(), receipt: null }).length).toBeGreaterThan(0);
  });

  it('refuses a failed check without issues, and issues on a passing check', () => {
    const id = QUALIFICATION_CHECK_IDS[0];
    expect(
      qualificationRecordIssues({
        ...withCheck(qualified(), 0, { id, status: 'fail', detail: 'x' }),
        qualified: false,
      }).length,
    ).toBeGreaterThan(0);
    expect(
      qualificationRecordIssues(
        withCheck(qualified(), 0, { id, status: 'pass', detail: 'x', issues: [{ code: 'x', message: 'y' }] }),
      ).length,
    ).toBeGreaterThan(0);
  });

  it('refuses a record missing a check or with them out of order', () => {
    const record = qualified();
    expect(
      qualificationRecordIssues({ ...record, checks: record.checks.slice(1) }).map((i) => i.code),
    ).toEqual(['checks_incomplete']);
    expect(
      qualificationRecordIssues({ ...record, checks: [...record.checks].reverse() }).map((i) => i.code),
    ).toEqual(['checks_incomplete']);
  });

  it('refuses unknown members and malformed digests', () => {
    expect(qualificationRecordIssues({ ...qualified(), extra: 1 }).length).toBeGreaterThan(0);
    const record = qualified();
    expect(
      qualificationRecordIssues({ ...record, digests: { ...record.digests, sha256sums: 'sha256:XYZ' } })
        .length,
    ).toBeGreaterThan(0);
  });
});
