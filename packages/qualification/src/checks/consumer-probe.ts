// Check consumer-probe: the probe ran in the consumer and printed one valid report.
import { runConsumerProbe } from '../consumer.js';
import { RUNNER_PACKAGE_NAME, undeclaredSubpaths } from '../judgements.js';
import { judge } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const consumerProbe: QualificationCheckDefinition = {
  id: 'consumer-probe',
  needs: ['consumer-install'],
  unavailable: 'no probe report',
  run: async ({ options }, values) => {
    const { consumerDir, manifest } = values.need('consumer-install');
    const env = options.env ?? process.env;
    const probed = await runConsumerProbe({
      consumerDir,
      input: { packageName: RUNNER_PACKAGE_NAME, undeclaredSubpaths: undeclaredSubpaths(manifest) },
      env,
      ...(options.probeTimeoutMs === undefined ? {} : { timeoutMs: options.probeTimeoutMs }),
    });
    return judge(probed.issues, probed.detail, probed.detail, {
      ...(probed.report === null ? {} : { value: probed.report }),
    });
  },
};
