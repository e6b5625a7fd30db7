// Check runnerd-eval-session: only once the six-dimension join holds (negotiation), the package's
// paperclip-runner-eval-session bin, as installed in the consumer, runs Evals' request against a
// private copy of the resolved runnerd; its artifact, its bundle and the files they reference verify.
// It needs negotiation's receipt, so a release negotiation refuses (any of the six dimensions)
// starts no session.
import { join } from 'node:path';

import { evalSessionBinOf, runEvalSessionCheck } from '../eval-session.js';
import { fail, judge, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const runnerdEvalSession: QualificationCheckDefinition = {
  id: 'runnerd-eval-session',
  // negotiation: no attempted run before the join holds (a mismatch of any dimension starts none).
  needs: ['runnerd-resolve', 'package-manifest', 'consumer-install', 'negotiation'],
  run: async ({ releaseDir, workDir, options }, values) => {
    if (values.need('negotiation').receipt === null)
      return lacking([
        { need: 'negotiation', why: 'the join does not hold (incompatible), so no eval session is started' },
      ]);
    const { file, artifact } = values.need('runnerd-resolve');
    const packageVersion = values.need('package-manifest').version;
    if (packageVersion === null) {
      return lacking([
        { need: 'package-manifest', why: "no package version to hold the bundle's runner to" },
      ]);
    }
    const bin = await evalSessionBinOf(values.need('consumer-install').consumerDir);
    if (typeof bin !== 'string') return fail(bin.message, [bin]);
    const result = await runEvalSessionCheck({
      evalSessionBin: bin,
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
