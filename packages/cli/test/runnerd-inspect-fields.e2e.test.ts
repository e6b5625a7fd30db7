// `evals runnerd inspect` shows every field a runnerd reported: upstream's eight, newer builds'
// prpTransportModes, and any additive field (kept, shown, never dropped), and warns when a runnerd
// declares itself a debug build (buildProfile, a field upstream's runnerd does not print: only the
// gate's record proves a release build). The review found "verified" for a runnerd whose own
// --build-metadata said "buildProfile":"debug", its extra fields missing from the table.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { GOOD_METADATA, printingScript, writeExecutable } from '@paperclip-evals/test-kit/test-executables';

import type { TestExecutable } from '@paperclip-evals/test-kit/test-executables';

let dir: string;
let debug: TestExecutable;
let plain: TestExecutable;
/** Upstream's fields only (the test kit's metadata adds a release buildProfile). */
const { buildProfile: _profile, ...UPSTREAM } = GOOD_METADATA;
const EXTRA = { buildProfile: 'debug', prpTransportModes: ['stdio'], buildHost: 'ci-7', features: { x: 1 } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-inspect-fields-'));
  debug = await writeExecutable(
    join(dir, 'debug'),
    printingScript(JSON.stringify({ ...UPSTREAM, ...EXTRA })),
  );
  plain = await writeExecutable(join(dir, 'plain'), printingScript(JSON.stringify(UPSTREAM)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const inspect = (exe: TestExecutable, json = false) =>
  spawnSync(
    process.execPath,
    [
      EVALS_BIN,
      'runnerd',
      'inspect',
      '--path',
      exe.path,
      '--sha256',
      exe.sha256,
      ...(json ? ['--json'] : []),
    ],
    {
      encoding: 'utf8',
    },
  );

describe('when runnerd prints fields beyond upstream and declares a debug build', () => {
  it('shows every field it reported in the table', () => {
    const run = inspect(debug);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/PRP transports +stdio/);
    expect(run.stdout).toMatch(/buildProfile +"debug"/);
    expect(run.stdout).toMatch(/buildHost +"ci-7"/);
    expect(run.stdout).toMatch(/features +\{"x":1\}/);
  });

  it('warns on stderr that it declares itself a debug build', () => {
    expect(inspect(debug).stderr).toMatch(/^warning: .* declares itself a "debug" build/m);
  });

  it('keeps every field in --json', () => {
    const run = inspect(debug, true);
    expect((JSON.parse(run.stdout) as { buildMetadata: unknown }).buildMetadata).toMatchObject(EXTRA);
    expect(run.stderr).toMatch(/declares itself a "debug" build/);
  });
});

describe("when runnerd prints upstream's fields only", () => {
  it('shows them with no warning and no extra line', () => {
    const run = inspect(plain);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toMatch(/buildProfile/);
  });
});
