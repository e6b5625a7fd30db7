// Check sha256sums: SHA256SUMS lists exactly the directory's files and every digest matches.
import { verifySha256Sums } from '../release-dir.js';
import { judge } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const sha256sums: QualificationCheckDefinition = {
  id: 'sha256sums',
  needs: ['release-layout'],
  run: async ({ releaseDir }, values) => {
    const sums = await verifySha256Sums(releaseDir, values.need('release-layout'));
    return judge(
      sums.issues,
      `SHA256SUMS lists exactly the ${sums.verifiedCount} files of the directory and every digest matches`,
      'SHA256SUMS does not verify the release directory',
      { value: sums, facts: { sha256sums: sums.sumsSha256, files: sums.computed } },
    );
  },
};
