// Check driver-conformance: the package ships upstream's harness-driver conformance fixture at its
// upstream path, and runHarnessDriverConformance with the package's DeterministicHarnessDriver
// returned a report whose every check (each of upstream's ten) is true, at the package's driver
// contract version.
import { judgeConformance, PROTOCOL_FILES } from '../judgements.js';
import { judge, lacking } from './context.js';
import { readProtocolFile } from './native-execution-fixture.js';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

const FIXTURE_SCHEMA = 'paperclip-runner/harness-driver-conformance-fixture/v1';

export const driverConformance: QualificationCheckDefinition = {
  id: 'driver-conformance',
  needs: ['tarball-extract', 'consumer-probe', 'entry-points'],
  uses: ['build-metadata'],
  unavailable: 'no conformance report with a driver descriptor',
  run: async (_input, values) => {
    const conformance = values.need('entry-points').conformance;
    if (conformance === null) return lacking([{ need: 'entry-points', why: './testing did not load' }]);
    const packageDir = values.need('tarball-extract').packageDir;
    if (packageDir === null) return lacking([{ need: 'tarball-extract', why: 'nothing safe was extracted' }]);
    const issues: QualificationIssue[] = [];
    const fixture = await readProtocolFile(packageDir, PROTOCOL_FILES.conformanceFixture);
    if ('issue' in fixture) issues.push(fixture.issue);
    else if (fixture.value.schema !== FIXTURE_SCHEMA) {
      issues.push({
        code: 'protocol_file_invalid',
        message: `package/${PROTOCOL_FILES.conformanceFixture} is not a ${FIXTURE_SCHEMA}`,
        entry: `package/${PROTOCOL_FILES.conformanceFixture}`,
        path: '/schema',
        expected: FIXTURE_SCHEMA,
        received: fixture.value.schema ?? 'missing',
      });
    }
    const judged = judgeConformance(
      conformance,
      values.found('build-metadata')?.contracts.harnessDriver ?? null,
    );
    issues.push(...judged.issues);
    return judge(
      issues,
      `the deterministic driver passed ${Object.keys(judged.report?.checks ?? {}).length} conformance checks`,
      'the harness driver does not conform',
      { ...(judged.report === null ? {} : { value: judged.report }), facts: { conformance: judged.report } },
    );
  },
};
