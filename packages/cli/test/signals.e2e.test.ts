// SIGTERM and SIGINT to every `evals` command that starts children: the real CLI runs a child that
// sleeps and has started a grandchild in its group (a fake runnerd under `runnerd inspect` and
// `negotiate`, a fake policy producer, a fake pnpm under `qualify`); the signal arrives while the
// child runs. The CLI must exit promptly with the conventional code (143 / 130), no process of the
// child's group may remain, and the private copy or work directory it made under TMPDIR must be gone.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { goneWithin, isRunning } from '@paperclip-evals/test-kit/processes';
import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { createTestExecutables } from '@paperclip-evals/test-kit/test-executables';
import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';
import { writeExecutable } from '@paperclip-evals/test-kit/producers';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { writeNegotiationDocuments } from './support/negotiation-documents.ts';

import type { TestExecutables } from '@paperclip-evals/test-kit/test-executables';

const ATTEMPTS = join(REPO_ROOT, 'fixtures/attempts/valid');
/** How long the CLI may take to exit once signalled. */
const PROMPT_MS = 3000;

let dir: string;
let executables: TestExecutables;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-signals-e2e-'));
  await mkdir(join(dir, 'runnerd'));
  executables = await createTestExecutables(join(dir, 'runnerd'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A `#!/bin/sh` child that starts a sleeping grandchild, writes "<its pid> <grandchild pid>" and waits. */
async function sleepingChild(name: string): Promise<{ path: string; sha256: string; pidsFile: string }> {
  const pidsFile = join(dir, `${name}.pids`);
  const exe = await writeExecutable(
    dir,
    name,
    `#!/bin/sh\n/bin/sleep 300 &\necho "$$ $!" > '${pidsFile}'\nwait\n`,
  );
  return { ...exe, pidsFile };
}

async function until(what: string, ready: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Signalled {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly ms: number;
  readonly pids: number[];
  /** Whether every pid of the child's group was gone within GONE_WITHIN_MS of the CLI's exit. */
  readonly groupGone: boolean;
  /** What TMPDIR held while the child ran, and after the CLI exited. */
  readonly tmpBefore: string[];
  readonly tmpAfter: string[];
}

/** Runs the CLI with a fresh TMPDIR, waits for the child's pids file, signals the CLI. */
async function signalWhileChildRuns(
  args: string[],
  pidsFile: string,
  signal: 'SIGTERM' | 'SIGINT',
  env: NodeJS.ProcessEnv = {},
): Promise<Signalled> {
  await rm(pidsFile, { force: true });
  const tmp = await mkdtemp(join(dir, 'tmp-'));
  const cli = spawn(process.execPath, [EVALS_BIN, ...args], {
    env: { ...process.env, ...env, TMPDIR: tmp },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    cli.on('close', (code, sig) => {
      resolve({ code, signal: sig });
    });
  });
  try {
    await until(
      `${pidsFile} (stderr: ${stderr})`,
      () => existsSync(pidsFile) && /\d+ \d+/.test(readFileSync(pidsFile, 'utf8')),
    );
    const pids = readFileSync(pidsFile, 'utf8').trim().split(' ').map(Number);
    for (const pid of pids) expect(isRunning(pid)).toBe(true);
    const tmpBefore = readdirSync(tmp);
    const sent = Date.now();
    cli.kill(signal);
    const exit = await Promise.race([
      exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => {
          reject(new Error(`the CLI did not exit within ${PROMPT_MS} ms of ${signal}`));
        }, PROMPT_MS),
      ),
    ]);
    const ms = Date.now() - sent;
    const groupGone = await goneWithin(pids);
    return { ...exit, stderr, ms, pids, groupGone, tmpBefore, tmpAfter: readdirSync(tmp) };
  } finally {
    cli.kill('SIGKILL');
    const pids = existsSync(pidsFile) ? readFileSync(pidsFile, 'utf8').trim().split(' ').map(Number) : [];
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL'); // never leave a sleeper behind, whatever the verdict
      } catch {
        // gone
      }
    }
  }
}

function expectCleanStop(run: Signalled, signal: 'SIGTERM' | 'SIGINT'): void {
  expect(
    run.tmpBefore.length,
    'a private copy or work directory existed while the child ran',
  ).toBeGreaterThan(0);
  expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({
    code: signal === 'SIGTERM' ? 143 : 130,
    signal: null,
  });
  expect(run.ms).toBeLessThan(PROMPT_MS);
  expect(run.groupGone, `the child's group (pids ${run.pids.join(', ')}) still runs`).toBe(true);
  expect(run.tmpAfter).toEqual([]);
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s while a child runs', (signal) => {
  it('evals runnerd inspect: the build-metadata run and its grandchild are killed, the private copy removed', async () => {
    const sleeper = executables.sleeper;
    const run = await signalWhileChildRuns(
      ['runnerd', 'inspect', '--path', sleeper.path, '--sha256', sleeper.sha256, '--timeout-ms', '60000'],
      executables.sleeperPidsFile,
      signal,
    );
    expectCleanStop(run, signal);
  });

  it('evals negotiate: the runnerd it resolves and its grandchild are killed, the private copy removed', async () => {
    const sleeper = executables.sleeper;
    const docs = join(dir, `negotiate-${signal}`);
    await mkdir(docs);
    writeNegotiationDocuments(docs);
    const run = await signalWhileChildRuns(
      [
        'negotiate',
        '--package-metadata',
        join(docs, 'package-metadata.json'),
        '--requirements',
        join(docs, 'requirements.json'),
        '--catalog',
        join(docs, 'catalog.json'),
        '--runnerd',
        sleeper.path,
        '--runnerd-sha256',
        sleeper.sha256,
        '--timeout-ms',
        '60000',
      ],
      executables.sleeperPidsFile,
      signal,
    );
    expectCleanStop(run, signal);
  });

  it('evals policy replay: the producer and its grandchild are killed, the private copy removed', async () => {
    const producer = await sleepingChild(`producer-${signal}.sh`);
    const bundle = join(dir, 'policy.json');
    await writeFile(bundle, JSON.stringify(bundleOf(denyApprovals)));
    const run = await signalWhileChildRuns(
      [
        'policy',
        'replay',
        '--policy-binary',
        producer.path,
        '--sha256',
        producer.sha256,
        '--bundle',
        bundle,
        ATTEMPTS,
      ],
      producer.pidsFile,
      signal,
    );
    expectCleanStop(run, signal);
  });

  it('evals qualify: the consumer install and its grandchild are killed, the work directory removed', async () => {
    const pnpm = await sleepingChild(`pnpm-${signal}.sh`);
    const releases = join(dir, `releases-${signal}`);
    await mkdir(releases, { recursive: true });
    const release = await buildFakeRelease(join(releases, 'good'));
    const run = await signalWhileChildRuns(['qualify', '--release-dir', release.dir], pnpm.pidsFile, signal, {
      PAPERCLIP_EVALS_PNPM: pnpm.path,
    });
    expectCleanStop(run, signal);
  });
});
