// Check root-exports: the root entry point exports contracts only, no test double.
import { rootExportIssues } from '../judgements.js';
import { judge, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const rootExports: QualificationCheckDefinition = {
  id: 'root-exports',
  needs: ['consumer-probe', 'entry-points'],
  run: (_input, values) => {
    const report = values.need('entry-points');
    if (!report.entryPoints['.'].loaded) {
      return lacking([{ need: 'entry-points', why: 'the root entry point did not load' }]);
    }
    return judge(
      rootExportIssues(report),
      'the root entry point exports no test double',
      'the root entry point leaks test doubles',
    );
  },
};
