// Check native-execution-fixture: the package ships upstream's protocol files (the
// native-execution schema and the seeded fixture at their upstream paths, read from the extracted
// tarball, never through the package's code); the seeded fixture is valid for Evals' parser and
// the package's (loadPaperclipNativeExecutionFixture, parsePaperclipNativeExecution), and both
// refuse broken variants of it.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nativeExecutionIssues, readJsonText } from '@paperclip-evals/contract';

import { PROTOCOL_FILES } from '../judgements.js';
import { canonicalDigestOrNull } from './digest.js';
import { judge, lacking } from './context.js';

import type { ProbeReport } from '../probe.js';
import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

/** Fewest broken variants of the seeded fixture the package's parser must be shown to refuse. */
const MIN_BROKEN_VARIANTS = 2;

const MAX_PROTOCOL_FILE_BYTES = 16 * 1024 * 1024;

/** A protocol file of the extracted package as a JSON object, or the issue why it is not one. */
export async function readProtocolFile(
  packageDir: string,
  file: string,
): Promise<{ readonly value: Record<string, unknown> } | { readonly issue: QualificationIssue }> {
  const entry = `package/${file}`;
  const missing = (message: string): { issue: QualificationIssue } => ({
    issue: { code: 'protocol_file_missing', message, entry, expected: 'a JSON object', received: 'missing' },
  });
  const path = join(packageDir, file);
  const stats = await lstat(path).catch(() => null);
  if (stats === null) return missing(`the tarball has no ${entry}`);
  if (!stats.isFile()) return missing(`${entry} is not a regular file`);
  const text = readJsonText(await readFile(path), { maxBytes: MAX_PROTOCOL_FILE_BYTES });
  if (!text.ok || typeof text.value !== 'object' || text.value === null || Array.isArray(text.value)) {
    return {
      issue: {
        code: 'protocol_file_invalid',
        message: `${entry} is not one strict JSON object`,
        entry,
        expected: 'a JSON object',
        received: text.ok ? text.value : text.issues.slice(0, 5),
      },
    };
  }
  return { value: text.value as Record<string, unknown> };
}

export const nativeExecutionFixture: QualificationCheckDefinition = {
  id: 'native-execution-fixture',
  needs: ['tarball-extract', 'consumer-probe', 'entry-points'],
  run: async (_input, values) => {
    const evals = values.need('entry-points').evals;
    if (evals === null) return lacking([{ need: 'entry-points', why: './evals did not load' }]);
    const packageDir = values.need('tarball-extract').packageDir;
    if (packageDir === null) return lacking([{ need: 'tarball-extract', why: 'nothing safe was extracted' }]);
    const issues: QualificationIssue[] = [];
    const schemaFile = await readProtocolFile(packageDir, PROTOCOL_FILES.nativeExecutionSchema);
    const nativeExecutionSchema = 'value' in schemaFile ? canonicalDigestOrNull(schemaFile.value) : null;
    if ('issue' in schemaFile) issues.push(schemaFile.issue);
    const seededFile = await readProtocolFile(packageDir, PROTOCOL_FILES.seededFixture);
    if ('issue' in seededFile) issues.push(seededFile.issue);
    if (!evals.fixture.ok) {
      issues.push({
        code: 'fixture_unavailable',
        message: `loadPaperclipNativeExecutionFixture failed: ${evals.fixture.error.name}: ${evals.fixture.error.message}`,
        received: evals.fixture.error,
      });
      return judge(issues, 'the seeded fixture loaded', 'the seeded fixture cannot be checked', {
        facts: { digests: { nativeExecutionSchema } },
      });
    }
    const seededFixture = canonicalDigestOrNull(evals.fixture.value);
    if ('value' in seededFile && canonicalDigestOrNull(seededFile.value) !== seededFixture) {
      issues.push({
        code: 'fixture_file_mismatch',
        message: `loadPaperclipNativeExecutionFixture() returned another bundle than package/${PROTOCOL_FILES.seededFixture} holds`,
        entry: `package/${PROTOCOL_FILES.seededFixture}`,
        expected: canonicalDigestOrNull(seededFile.value),
        received: seededFixture,
      });
    }
    const ours = nativeExecutionIssues(evals.fixture.value);
    const theirs = evals.packageVerdict;
    if (!theirs.ran) {
      issues.push({
        code: 'package_parser_failed',
        message: `the package's parsePaperclipNativeExecution did not give a verdict: ${theirs.error.name}: ${theirs.error.message}`,
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
      `${PROTOCOL_FILES.nativeExecutionSchema} is shipped; the seeded fixture is valid for both Evals' parser and the package's, and both refuse its ${evals.brokenVariants.length} broken variants (${evals.brokenVariants.map((variant) => variant.name).join(', ')})`,
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
        message: `the package's parsePaperclipNativeExecution did not give a verdict on the ${variant.name} variant: ${verdict.error.name}: ${verdict.error.message}`,
        received: verdict.error,
      });
    } else if (verdict.valid) {
      issues.push({
        code: 'package_parser_accepts_broken',
        message: `the package's parsePaperclipNativeExecution accepts the seeded fixture with ${variant.name}; Evals' parser refuses it`,
        expected: { invalid: [...new Set(nativeExecutionIssues(variant.bundle).map((issue) => issue.code))] },
        received: 'valid',
      });
    }
  }
  return issues;
}
