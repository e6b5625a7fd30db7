// Check runnerd-eval-session: a private copy of runnerd runs Evals' eval-session request; its
// bundle and the files it references verify. Only after the join held: it needs negotiation's
// receipt, so a release that negotiation refuses (any of the six dimensions) starts no session.
import { join } from 'node:path';

import { runEvalSessionCheck } from '../eval-session.js';
import { judge, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const runnerdEvalSession: QualificationCheckDefinition = {
  id: 'runnerd-eval-session',
  needs: ['runnerd-resolve', 'package-manifest', 'negotiation'],
  run: async ({ releaseDir, workDir, options }, values) => {
    if (values.need('negotiation').receipt === null) {
      return lacking([
        {
          need: 'negotiation',
          why: 'the release is incompatible; no eval session runs before the join holds',
        },
      ]);
    }
    const { file, artifact } = values.need('runnerd-resolve');
    const packageVersion = values.need('package-manifest').version;
    if (packageVersion === null) {
      return lacking([
        { need: 'package-manifest', why: "no package version to hold the bundle's runner to" },
      ]);
    }
    const result = await runEvalSessionCheck({
      runnerdPath: join(releaseDir, file),
      expectedSha256: artifact.sha256,
      packageVersion,
      workDir,
      ...(options.evalSessionTimeoutMs === undefined ? {} : { timeoutMs: options.evalSessionTimeoutMs }),
      ...(options.evalSessionRequestFile === undefined
        ? {}
        : { requestFile: options.evalSessionRequestFile }),
    });
    return judge(result.issues, result.detail, result.detail);
  },
};
