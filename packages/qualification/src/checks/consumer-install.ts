// Check consumer-install: an offline, isolated install of the extracted package into a fresh
// consumer outside the repo.
import { join } from 'node:path';

import { installConsumer } from '../consumer.js';
import { RUNNER_PACKAGE_NAME } from '../judgements.js';
import { pnpmCommand } from '../processes.js';
import { judge, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const consumerInstall: QualificationCheckDefinition = {
  id: 'consumer-install',
  needs: ['tarball-extract', 'package-manifest'],
  run: async ({ workDir, options }, values) => {
    const packageDir = values.need('tarball-extract').packageDir;
    const manifest = values.need('package-manifest').manifest;
    if (packageDir === null) return lacking([{ need: 'tarball-extract', why: 'nothing safe was extracted' }]);
    if (manifest === null || manifest.name !== RUNNER_PACKAGE_NAME) {
      return lacking([{ need: 'package-manifest', why: `the tarball does not pack ${RUNNER_PACKAGE_NAME}` }]);
    }
    const env = options.env ?? process.env;
    const consumerDir = join(workDir, 'consumer');
    const installed = await installConsumer({
      consumerDir,
      packageName: RUNNER_PACKAGE_NAME,
      packageDir,
      pnpm: options.pnpm ?? pnpmCommand(env),
      env,
      ...(options.installTimeoutMs === undefined ? {} : { timeoutMs: options.installTimeoutMs }),
    });
    return judge(installed.issues, installed.detail, installed.detail, {
      ...(installed.issues.length === 0 ? { value: { consumerDir, manifest } } : {}),
    });
  },
};
