// End to end through the built binary: SIGTERM or SIGINT in the middle of `evals qualify` stops it
// promptly, removes its work directory (the test points TMPDIR at a folder of its own) and kills the
// process group of the step that was running. The release is slow on purpose: its tarball is a
// 400 KiB package followed by 64 MiB of zeros after the end-of-archive marker (the scan used to
// spend minutes there, deaf to signals), and its pnpm is a script that records its pid and the pid
// of a child it starts, then waits forever.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { goneWithin } from '@paperclip-evals/test-kit/processes';
import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { createScratch } from './support/harness.ts';

import type { FakeRelease } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

const EVALS = join(REPO_ROOT, 'node_modules/.bin/evals');

let scratch: Scratch;
let release: FakeRelease;

beforeAll(async () => {
  scratch = await createScratch('signals');
  release = await buildFakeRelease(join(scratch.releases, 'slow'), {
    extraEntries: [{ path: 'package/blob.bin', body: randomBytes(400 * 1024) }],
    trailingZeroBytes: 64 * 1024 * 1024,
  });
});

afterAll(async () => {
  await scratch.remove();
});

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

describe.each(['SIGTERM', 'SIGINT'] as const)('when %s arrives mid-qualification', (signal) => {
  it('exits within 2 s, leaves no work directory and no child running', async () => {
    const pids = join(scratch.releases, `pnpm-${signal}.pids`);
    const pnpm = join(scratch.releases, `hanging-pnpm-${signal}`);
    await writeFile(pnpm, `#!/bin/sh\necho $$ > ${pids}\nsleep 300 &\necho $! >> ${pids}\nwait\n`);
    await chmod(pnpm, 0o755);
    const child = spawn(EVALS, ['qualify', '--release-dir', release.dir], {
      env: { ...process.env, TMPDIR: scratch.work, PAPERCLIP_EVALS_PNPM: pnpm },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('close', (code, closedBy) => {
        resolve({ code, signal: closedBy });
      });
    });
    // Past the tarball, into the install step: both pids written (or give up waiting after 20 s).
    const waitedSince = Date.now();
    while (Date.now() - waitedSince < 20_000) {
      if (existsSync(pids) && (await readFile(pids, 'utf8')).trim().split('\n').length === 2) break;
      await sleep(50);
    }
    const reachedInstall = existsSync(pids);
    const sentAt = Date.now();
    child.kill(signal);
    // A bound for a process that would not stop, not a speed test: a loaded machine takes seconds.
    const outcome = await Promise.race([exited, sleep(10_000).then(() => null)]);
    const took = Date.now() - sentAt;
    if (outcome === null) child.kill('SIGKILL');
    expect(outcome, `still running 10 s after ${signal} (stderr: ${stderr})`).not.toBeNull();
    // It dies of the signal, or exits with 128 + its number, as shells report a death by signal.
    const signalNumber = signal === 'SIGINT' ? 2 : 15;
    expect([
      { code: null, signal },
      { code: 128 + signalNumber, signal: null },
    ]).toContainEqual(outcome);
    expect(took).toBeLessThan(10_000);
    expect(reachedInstall, 'the tarball scan took more than 20 s').toBe(true);
    const started = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    expect(await goneWithin(started), `pids ${started.join(', ')} still run`).toBe(true);
    expect(await scratch.leftovers()).toEqual([]);
  }, 40_000);
});
