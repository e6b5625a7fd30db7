// Check driver-conformance: the deterministic driver's conformance run passed every check, at the
// package's driver contract version.
import { judgeConformance } from '../judgements.js';
import { judge, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const driverConformance: QualificationCheckDefinition = {
  id: 'driver-conformance',
  needs: ['consumer-probe', 'entry-points'],
  uses: ['build-metadata'],
  unavailable: 'no conformance report with a driver descriptor',
  run: (_input, values) => {
    const conformance = values.need('entry-points').conformance;
    if (conformance === null) return lacking([{ need: 'entry-points', why: './testing did not load' }]);
    const judged = judgeConformance(
      conformance,
      values.found('build-metadata')?.contracts.harnessDriver ?? null,
    );
    return judge(
      judged.issues,
      `the deterministic driver passed ${Object.keys(judged.report?.checks ?? {}).length} conformance checks`,
      'the harness driver does not conform',
      { ...(judged.report === null ? {} : { value: judged.report }), facts: { conformance: judged.report } },
    );
  },
};
