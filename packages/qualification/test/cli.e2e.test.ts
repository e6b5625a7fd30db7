// End to end through the built binary: `evals qualify --release-dir … [--out …] [--json]` exits 0
// for a qualified release (pnpm launched the default way, through npx), 1 for a refused one with
// every reason on stdout, and 2 for usage errors; the scripts/qualify-release wrapper passes the
// same codes through.
import { spawn } from 'node:child_process';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { createScratch } from './support/harness.ts';

import type { QualificationRecord } from '../src/record.ts';
import type { FakeRelease } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

const EVALS = join(REPO_ROOT, 'node_modules/.bin/evals');
const WRAPPER = join(REPO_ROOT, 'scripts/qualify-release');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

let scratch: Scratch;
let good: FakeRelease;
let hostile: FakeRelease;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  scratch = await createScratch('cli');
  good = await buildFakeRelease(join(scratch.releases, 'good'));
  hostile = await buildFakeRelease(join(scratch.releases, 'hostile'), {
    extraEntries: [{ path: '../escaped.txt', body: 'x' }],
  });
  // Work directories go to the scratch folder, so the test can see they are all removed.
  env = { ...process.env, TMPDIR: scratch.work };
  delete env.PAPERCLIP_EVALS_PNPM;
});

afterAll(async () => {
  await scratch.remove();
});

describe.concurrent('evals qualify', () => {
  it('exits 0 for a qualified release, printing the record and writing it to --out', async () => {
    const out = join(scratch.releases, 'record.json');
    const result = await run(EVALS, ['qualify', '--release-dir', good.dir, '--out', out, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as QualificationRecord;
    expect(printed.qualified).toBe(true);
    expect(printed.checks.find((c) => c.id === 'consumer-install')?.detail).toMatch(/npx -y pnpm@12\.4\.2/);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(printed);
    expect(result.stderr).toContain(`qualification record written to ${out}`);
  });

  it('exits 1 for a refused release, listing every reason in the table', async () => {
    const result = await run(EVALS, ['qualify', '--release-dir', hostile.dir], env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^refused /);
    expect(result.stdout).toMatch(/FAIL {2}tarball-extract/);
    expect(result.stdout).toContain('entry_path_traversal [../escaped.txt]');
    expect(result.stdout).toMatch(/skip {2}consumer-install/);
    expect(result.stdout).toMatch(/18 checks: \d+ passed, 1 failed, \d+ skipped/);
  });

  it('shows the runnerd digest as one to pin only when runnerd-resolve verified it', async () => {
    const verified = await run(EVALS, ['qualify', '--release-dir', good.dir], env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ {2}runnerd {2}\S+ {2}sha256:[0-9a-f]{64}$/m);
    // The same release without SHA256SUMS: the digest is only of the bytes read here.
    const unsummed = join(scratch.releases, 'no-sums');
    await cp(good.dir, unsummed, { recursive: true });
    await rm(join(unsummed, 'SHA256SUMS'));
    const refused = await run(EVALS, ['qualify', '--release-dir', unsummed], env);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toMatch(/skip {2}runnerd-resolve/);
    expect(refused.stdout).toMatch(
      /^ {2}runnerd {2}\S+ {2}sha256:[0-9a-f]{64} {2}\(not verified: runnerd-resolve skipped; do not pin it\)$/m,
    );
  });

  it('exits 2 for a release directory that does not exist', async () => {
    const result = await run(EVALS, ['qualify', '--release-dir', join(scratch.releases, 'nope')], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/does not exist/);
    expect(result.stdout).toBe('');
  });

  it('exits 2 without --release-dir, and for an --out inside the release directory', async () => {
    expect((await run(EVALS, ['qualify'], env)).code).toBe(2);
    const inside = await run(
      EVALS,
      ['qualify', '--release-dir', hostile.dir, '--out', join(hostile.dir, 'r.json')],
      env,
    );
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/inside the release directory/);
  });
});

describe.concurrent('scripts/qualify-release', () => {
  it('passes the exit code through and prints the record as JSON', async () => {
    const result = await run(WRAPPER, [hostile.dir], env);
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as QualificationRecord).qualified).toBe(false);
  });

  it('exits 2 on bad usage', async () => {
    expect((await run(WRAPPER, [], env)).code).toBe(2);
  });
});

it('leaves no work directory behind, whatever the outcome', async () => {
  expect(await scratch.leftovers()).toEqual([]);
});
