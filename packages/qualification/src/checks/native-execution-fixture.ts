// Check native-execution-fixture: the seeded fixture is valid for Evals' parser and the package's,
// and both refuse broken variants of it.
import { nativeExecutionIssues } from '@paperclip-evals/contract';

import { canonicalDigestOrNull } from './digest.js';
import { judge, lacking } from './context.js';

import type { ProbeReport } from '../probe.js';
import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

/** Fewest broken variants of the seeded fixture the package's parser must be shown to refuse. */
const MIN_BROKEN_VARIANTS = 2;

export const nativeExecutionFixture: QualificationCheckDefinition = {
  id: 'native-execution-fixture',
  needs: ['consumer-probe', 'entry-points'],
  run: (_input, values) => {
    const evals = values.need('entry-points').evals;
    if (evals === null) return lacking([{ need: 'entry-points', why: './evals did not load' }]);
    const issues: QualificationIssue[] = [];
    let nativeExecutionSchema = null;
    if (
      evals.nativeExecutionSchema.ok &&
      typeof evals.nativeExecutionSchema.value === 'object' &&
      evals.nativeExecutionSchema.value !== null
    ) {
      nativeExecutionSchema = canonicalDigestOrNull(evals.nativeExecutionSchema.value);
    } else {
      issues.push({
        code: 'native_execution_schema_unavailable',
        message: 'NATIVE_EXECUTION_SCHEMA is not a JSON object',
        received: evals.nativeExecutionSchema.ok
          ? evals.nativeExecutionSchema.value
          : evals.nativeExecutionSchema.error,
      });
    }
    if (!evals.fixture.ok) {
      issues.push({
        code: 'fixture_unavailable',
        message: `loadSeededNativeExecutionFixture failed: ${evals.fixture.error.name}: ${evals.fixture.error.message}`,
        received: evals.fixture.error,
      });
      return judge(issues, 'the seeded fixture loaded', 'the seeded fixture cannot be checked', {
        facts: { digests: { nativeExecutionSchema } },
      });
    }
    const seededFixture = canonicalDigestOrNull(evals.fixture.value);
    const ours = nativeExecutionIssues(evals.fixture.value);
    const theirs = evals.packageVerdict;
    if (!theirs.ran) {
      issues.push({
        code: 'package_parser_failed',
        message: `the package's parseNativeExecution did not give a verdict: ${theirs.error.name}: ${theirs.error.message}`,
        received: theirs.error,
      });
    } else if (theirs.valid !== (ours.length === 0)) {
      issues.push({
        code: 'parser_verdict_mismatch',
        message: `Evals' parser finds the seeded fixture ${ours.length === 0 ? 'valid' : 'invalid'}, the package's parser ${theirs.valid ? 'valid' : 'invalid'}`,
        expected: ours.length === 0 ? 'valid' : { invalid: ours.map((issue) => issue.code) },
        received: theirs.valid ? 'valid' : { invalid: theirs.issueCodes },
      });
    }
    if (ours.length === 0) issues.push(...brokenVariantIssues(evals.brokenVariants));
    if (ours.length > 0) {
      issues.push({
        code: 'fixture_invalid',
        message: `Evals' parser rejects the seeded fixture with ${ours.length} issue(s): ${[...new Set(ours.map((issue) => issue.code))].join(', ')}`,
        expected: 'a valid paperclip-runner/native-execution/v1 bundle',
        received: ours.slice(0, 20),
      });
    }
    return judge(
      issues,
      `the seeded fixture is valid for both Evals' parser and the package's, and both refuse its ${evals.brokenVariants.length} broken variants (${evals.brokenVariants.map((variant) => variant.name).join(', ')})`,
      'the seeded fixture does not pass both parsers, or a broken variant of it is accepted',
      { facts: { digests: { nativeExecutionSchema, seededFixture } } },
    );
  },
};

/** The package's parser must refuse every broken variant the probe made, as Evals' parser does. */
function brokenVariantIssues(
  variants: NonNullable<ProbeReport['evals']>['brokenVariants'],
): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  const refusedByEvals = variants.filter((variant) => nativeExecutionIssues(variant.bundle).length > 0);
  if (refusedByEvals.length < MIN_BROKEN_VARIANTS) {
    issues.push({
      code: 'broken_variants_too_few',
      message: `only ${refusedByEvals.length} broken variant(s) of the seeded fixture could be made (Evals' parser refuses them); at least ${MIN_BROKEN_VARIANTS} are needed to show the package's parser fails closed`,
      expected: `at least ${MIN_BROKEN_VARIANTS}`,
      received: variants.map((variant) => variant.name),
    });
  }
  for (const variant of refusedByEvals) {
    const verdict = variant.verdict;
    if (!verdict.ran) {
      issues.push({
        code: 'package_parser_failed',
        message: `the package's parseNativeExecution did not give a verdict on the ${variant.name} variant: ${verdict.error.name}: ${verdict.error.message}`,
        received: verdict.error,
      });
    } else if (verdict.valid) {
      issues.push({
        code: 'package_parser_accepts_broken',
        message: `the package's parseNativeExecution accepts the seeded fixture with ${variant.name}; Evals' parser refuses it`,
        expected: { invalid: [...new Set(nativeExecutionIssues(variant.bundle).map((issue) => issue.code))] },
        received: 'valid',
      });
    }
  }
  return issues;
}
