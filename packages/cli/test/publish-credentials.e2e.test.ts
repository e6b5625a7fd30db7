// Credential-shaped text never reaches what `evals` prints or publishes (a new-user review): a
// retraction reason holding a GitHub token and an agent's progress text holding an OpenAI key. Before,
// `retract` and `runs` printed the token, and a private `publish` wrote both into the immutable
// campaign folder, which `publish --verify` then refused (site_credential) for good. Now `retract`,
// `runs` (text and --json) print them masked, and the private and the public site hold no
// credential-shaped value (contract's credentialShapedValues, the detector --verify uses) and verify.
// The first run of each command is the binary, later ones its program in this process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { credentialShapedValues } from '@paperclip-evals/contract';
import { allBytes } from '@paperclip-evals/test-kit/site-store';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const TOKEN = `ghp_${'T'.repeat(36)}`;
const KEY = `sk-proj-${'K'.repeat(24)}`;
const STORE = ['--store', 'sqlite:book.sqlite'];

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
  {},
  (args) => (args.includes('--verify') ? 'publish --verify' : (args[0] ?? '')),
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-publish-credentials-'));
  for (const attemptId of ['attempt_a', 'attempt_b']) {
    const bundle = syntheticAttempt({ attemptId }) as {
      events: { eventType: string; payload: { text?: string } }[];
    };
    for (const event of bundle.events)
      if (event.eventType === 'item.delta') event.payload.text = `${event.payload.text ?? ''} using ${KEY}`;
    writeFileSync(join(dir, `${attemptId}.json`), JSON.stringify(bundle));
  }
  const ingest = await run(['ingest', 'attempt_a.json', 'attempt_b.json', ...STORE]);
  expect(ingest.status, ingest.stderr).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a token in a retraction reason and a key in the agent’s text', () => {
  it('retract prints the reason masked', async () => {
    const retract = await run([
      'retract',
      ...STORE,
      '--run',
      'run_synthetic',
      '--attempt',
      'attempt_b',
      '--reason',
      `token ${TOKEN}`,
      '--by',
      'tester',
    ]);
    expect(retract.status, retract.stderr).toBe(0);
    expect(retract.stdout).toContain('retracted by tester');
    expect(retract.stdout).toContain(': token ***');
    expect(`${retract.stdout}${retract.stderr}`).not.toContain(TOKEN);
  });

  it('runs and runs --json show it masked', async () => {
    for (const args of [
      ['runs', ...STORE],
      ['runs', ...STORE, '--json'],
    ]) {
      const runs = await run(args);
      expect(runs.status, runs.stderr).toBe(0);
      expect(runs.stdout).toContain('token ***');
      expect(`${runs.stdout}${runs.stderr}`).not.toContain(TOKEN);
    }
  });

  it.each([
    ['private', []],
    ['public', ['--public']],
  ])('the %s site holds no credential-shaped value and verifies', async (kind, flags) => {
    const publish = await run(['publish', ...STORE, '--out', kind, ...flags]);
    expect(publish.status, publish.stderr).toBe(0);
    const bytes = await allBytes(join(dir, kind));
    expect(credentialShapedValues(bytes)).toEqual([]);
    // What is around them is published (the private page shows the agent's text).
    if (kind === 'private') expect(bytes).toContain('using ***');
    const verify = await run(['publish', '--verify', kind]);
    expect(verify.stdout + verify.stderr).not.toContain('site_credential');
    expect(verify.status).toBe(0);
  });
});
