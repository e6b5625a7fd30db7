// Check runnerd-eval-session: only once the six-dimension join holds (negotiation), the package's
// paperclip-runner-eval-session bin, as installed in the consumer, runs twice against one private
// copy of the resolved runnerd. First Evals' refusal request (upstream's shape, a provider no runner
// supports) must be refused as upstream's parser refuses it: exit 1, nothing written, stderr naming
// the provider. Then Evals' session request (our offline provider paperclip_deterministic): its
// artifact, its bundle and the files they reference verify. A bin that refuses that provider the
// same way (upstream's: it runs only live providers) ran no session: the check is skipped "needs a
// provider: ..." when the refusal held (failed when it did not), never passed, so such a release
// is not qualified — and the record says why. It needs negotiation's receipt, so a release
// negotiation refuses (any of the six dimensions) runs nothing.
import { join } from 'node:path';

import { evalSessionBinOf, runEvalSessionChecks } from '../eval-session.js';
import { fail, judge, lacking, missing } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const runnerdEvalSession: QualificationCheckDefinition = {
  id: 'runnerd-eval-session',
  // negotiation: no attempted run before the join holds (a mismatch of any dimension starts none).
  needs: ['runnerd-resolve', 'package-manifest', 'build-metadata', 'consumer-install', 'negotiation'],
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
    const ran = await runEvalSessionChecks({
      evalSessionBin: bin,
      runnerdPath: join(releaseDir, file),
      expectedSha256: artifact.sha256,
      packageVersion,
      buildVersion: values.need('build-metadata').package.version,
      workDir,
      ...(options.evalSessionTimeoutMs === undefined ? {} : { timeoutMs: options.evalSessionTimeoutMs }),
      ...(options.evalSessionRequestFile === undefined
        ? {}
        : { requestFile: options.evalSessionRequestFile }),
    });
    if ('unstaged' in ran) return judge(ran.unstaged.issues, ran.unstaged.detail, ran.unstaged.detail);
    const { refusal, session } = ran;
    if (session.needsProvider !== undefined && refusal.issues.length === 0)
      return missing('a provider', `${session.needsProvider}. What ran offline holds: ${refusal.detail}`);
    const issues = [...refusal.issues, ...session.issues];
    const detail =
      refusal.issues.length === 0
        ? `${session.detail}; ${refusal.detail}`
        : session.issues.length === 0
          ? `${refusal.detail}; ${session.detail}`
          : `${session.detail}; ${refusal.detail}`;
    return judge(issues, detail, detail);
  },
};
