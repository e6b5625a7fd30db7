// Check build-metadata: the package's build metadata is valid. Its package version need not be the
// packed package.json's: upstream's package.json says 0.0.0 while its build metadata states its
// compatibility constant (docs/upstream-runner-facts.md §2), and what the release is negotiated on,
// here and in upstream's own gate, is the build metadata's version.
import { isContractError, parsePackageBuildMetadata } from '@paperclip-evals/contract';

import { canonicalDigestOrNull } from './digest.js';
import { fail, judge, lacking } from './context.js';

import type { PackageBuildMetadata } from '@paperclip-evals/contract';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

export const buildMetadata: QualificationCheckDefinition = {
  id: 'build-metadata',
  needs: ['consumer-probe', 'entry-points', 'package-manifest'],
  unavailable: 'no valid build metadata',
  run: (_input, values) => {
    const evals = values.need('entry-points').evals;
    if (evals === null) return lacking([{ need: 'entry-points', why: './evals did not load' }]);
    const captured = evals.buildMetadata;
    if (!captured.ok) {
      return fail('PAPERCLIP_RUNNER_BUILD_METADATA cannot be read', [
        {
          code: 'build_metadata_unavailable',
          message: `${captured.error.name}: ${captured.error.message}`,
          received: captured.error,
        },
      ]);
    }
    const facts = { digests: { buildMetadata: canonicalDigestOrNull(captured.value) } };
    let metadata: PackageBuildMetadata;
    try {
      metadata = parsePackageBuildMetadata(captured.value);
    } catch (error) {
      if (!isContractError(error)) throw error;
      return fail('the package build metadata is invalid', error.issues, facts);
    }
    const packageVersion = values.need('package-manifest').version;
    const issues: QualificationIssue[] = [];
    const packed =
      packageVersion === metadata.package.version ? '' : ` (package.json says ${String(packageVersion)})`;
    return judge(
      issues,
      `paperclip-runner/build-metadata/v1 for ${metadata.package.name} ${metadata.package.version}${packed}`,
      'the build metadata does not describe the packed package',
      { value: metadata, facts: { ...facts, packageBuildMetadata: metadata } },
    );
  },
};
