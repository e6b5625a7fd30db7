// Check undeclared-subpaths: paths the exports map does not declare are refused.
import { undeclaredSubpathIssues } from '../judgements.js';
import { judge } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const undeclaredSubpathsCheck: QualificationCheckDefinition = {
  id: 'undeclared-subpaths',
  needs: ['consumer-probe'],
  run: (_input, values) => {
    const report = values.need('consumer-probe');
    return judge(
      undeclaredSubpathIssues(report),
      `${report.undeclared.length} undeclared subpaths refused with ERR_PACKAGE_PATH_NOT_EXPORTED`,
      'undeclared subpaths are reachable',
    );
  },
};
