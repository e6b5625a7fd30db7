// Check release-layout: SHA256SUMS, one *.tgz, the host's runnerd and the App's record are present.
import { judge } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const releaseLayout: QualificationCheckDefinition = {
  id: 'release-layout',
  needs: [],
  run: ({ layout }) =>
    judge(
      layout.issues,
      `SHA256SUMS, ${layout.tarball ?? '?'}, ${layout.runnerd ?? '?'} and the App's record are present`,
      'the release directory does not have the expected layout',
      { value: layout },
    ),
};
