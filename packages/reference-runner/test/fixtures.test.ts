// The fixtures the package ships are generated, never hand-written: fixtures/evals/ must equal what
// the generators produce now (run the package's `fixtures` script after changing them), and
// protocol/ must be an exact copy of schemas/ and fixtures/evals/.
import './support/protocol.js';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseNativeExecution as evalsParseNativeExecution } from '../../contract/src/index.ts';
import { protocolFiles } from '../scripts/build-protocol.mjs';
import { formatFixture } from '../scripts/format-fixture.mjs';
import {
  generateHarnessDriverConformanceFixture,
  generateSeededNativeExecutionFixture,
} from '../src/session/fixtures.js';
import { REPO_DIR } from './support/paths.js';

const fixturePath = (name: string): string => join(REPO_DIR, 'fixtures', 'evals', name);
const regenerate = 'regenerate with `npx -y pnpm@12.4.2 --filter @paperclipai/paperclip-runner run fixtures`';

describe('fixtures/evals/', () => {
  it(`native-execution-seeded.json is current (${regenerate})`, async () => {
    const path = fixturePath('native-execution-seeded.json');
    expect(readFileSync(path, 'utf8')).toBe(
      await formatFixture(path, await generateSeededNativeExecutionFixture()),
    );
  });

  it(`harness-driver-conformance.json is current (${regenerate})`, async () => {
    const path = fixturePath('harness-driver-conformance.json');
    expect(readFileSync(path, 'utf8')).toBe(
      await formatFixture(path, generateHarnessDriverConformanceFixture()),
    );
  });

  it("the seeded bundle passes Evals' own parser", () => {
    expect(() =>
      evalsParseNativeExecution(readFileSync(fixturePath('native-execution-seeded.json'))),
    ).not.toThrow();
  });
});

describe('protocol/', () => {
  it('holds exact copies of schemas/** and the two Evals fixtures', () => {
    const pairs = protocolFiles();
    expect(pairs.length).toBeGreaterThan(10);
    for (const [source, target] of pairs)
      expect(readFileSync(target).equals(readFileSync(source)), target).toBe(true);
  });
});
