// Regenerates the repo's fixtures/evals/ files from the package's own code (run after `tsc -b`):
// the seeded native-execution bundle (the eval-session logic on a fixed request) and the
// harness-driver conformance fixture (from the deterministic driver's descriptor), then refreshes
// protocol/. Written in the
// repo's prettier style, so a copy in protocol/ passes `prettier --check`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_DIR, buildProtocol } from './build-protocol.mjs';
import { formatFixture } from './format-fixture.mjs';

buildProtocol({ fixtures: false }); // the generators validate against the shipped schemas
const { generateHarnessDriverConformanceFixture, generateSeededNativeExecutionFixture } =
  await import('../dist/session/fixtures.js');

const dir = join(REPO_DIR, 'fixtures', 'evals');
mkdirSync(dir, { recursive: true });
const fixtures = {
  'native-execution-seeded.json': await generateSeededNativeExecutionFixture(),
  'harness-driver-conformance.json': generateHarnessDriverConformanceFixture(),
};
for (const [name, value] of Object.entries(fixtures)) {
  const path = join(dir, name);
  writeFileSync(path, await formatFixture(path, value));
  process.stdout.write(`wrote ${path}\n`);
}
buildProtocol();
