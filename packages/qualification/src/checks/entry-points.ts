// Check entry-points: `.`, `./evals` and `./testing` load and export the documented names.
import { entryPointIssues } from '../judgements.js';
import { judge } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const entryPoints: QualificationCheckDefinition = {
  id: 'entry-points',
  needs: ['consumer-probe'],
  run: (_input, values) => {
    const report = values.need('consumer-probe');
    return judge(
      entryPointIssues(report),
      '., ./evals and ./testing load and export the documented names',
      'the public entry points are incomplete',
      { value: report },
    );
  },
};
