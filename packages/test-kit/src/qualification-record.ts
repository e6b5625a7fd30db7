// Test kit: an evals-qualification/v1 record for tests that read one (qualification's record schema,
// the campaign's join of a --qualification record): every check of QUALIFICATION_CHECK_IDS once, in
// order, passing unless named in `failed` (then failing with one issue, and the record not
// qualified, without a receipt). `overrides` replaces top-level members (digests, …).
import { QUALIFICATION_CHECK_IDS } from '@paperclip-evals/qualification';

import type { QualificationRecord } from '@paperclip-evals/qualification';

/** The negotiation receipt of a qualified record. */
export const QUALIFIED_RECEIPT = {
  schema: 'paperclip-runner/evals-integration/v1',
  consumer: 'paperclip-evals',
  packageVersion: '0.4.0',
  runnerdPackageVersion: '0.4.0',
  negotiatedPrpVersion: 1,
  nativeExecution: 'paperclip-runner/native-execution/v1',
  catalogSha256: `sha256:${'c'.repeat(64)}`,
  driverKind: 'deterministic',
  driverVersion: '0.4.0',
} as const;

export function qualificationRecord(
  failed: readonly string[] = [],
  overrides: Partial<QualificationRecord> = {},
): QualificationRecord {
  const qualified = failed.length === 0;
  return {
    schema: 'evals-qualification/v1',
    qualified,
    releaseDir: '/releases/0.4.0',
    evaluator: {
      name: '@paperclip-evals/qualification',
      version: '0.1.0',
      node: 'v20.20.2',
      platform: 'linux',
      arch: 'x64',
    },
    package: {
      name: '@paperclipai/paperclip-runner',
      version: '0.4.0',
      tarball: 'p.tgz',
      tarballSha256: null,
    },
    runnerd: {
      file: 'paperclip-runnerd-linux-x64',
      sha256: null,
      byteSize: 10,
      buildMetadata: null,
      buildProfile: 'release',
    },
    receipt: qualified ? QUALIFIED_RECEIPT : null,
    consumerRequirements: null,
    conformance: null,
    checks: QUALIFICATION_CHECK_IDS.map((id) =>
      failed.includes(id)
        ? {
            id,
            status: 'fail' as const,
            detail: 'x',
            issues: [{ code: 'sha256_mismatch', message: 'p.tgz changed' }],
          }
        : { id, status: 'pass' as const, detail: 'ok' },
    ),
    digests: {
      sha256sums: null,
      files: {},
      buildMetadata: null,
      semanticCatalog: null,
      nativeExecutionSchema: null,
      seededFixture: null,
      consumerRequirements: null,
    },
    ...overrides,
  };
}
