// Writes fixtures/environments/demo/evalbook.yaml, the checked-in copy of the Evalbook environment
// `pnpm demo` generates (scripts/demo-suite.ts), so readers can see the suite without running it.
// Run after changing the suite: `npx tsx scripts/demo-environment.ts` (scripts/demo-suite.test.ts
// fails while the copy is stale).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { demoEnvironmentYaml } from './demo-suite.ts';

export const DEMO_ENVIRONMENT_FIXTURE = fileURLToPath(
  new URL('../fixtures/environments/demo/evalbook.yaml', import.meta.url),
);

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DEMO_ENVIRONMENT_FIXTURE, demoEnvironmentYaml());
  process.stdout.write(`wrote ${DEMO_ENVIRONMENT_FIXTURE}\n`);
}
