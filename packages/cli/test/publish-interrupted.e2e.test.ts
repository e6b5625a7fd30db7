// `evals publish` stopped part-way (a new-user review: SIGINT or SIGKILL during the publication of a
// big store left `campaigns/.publishing-<hex>/`; SIGINT exited 130 saying nothing; publishing again
// left it, and --verify refused the site with one site_unknown_path line per file inside it). The
// real binary, on one thread and on two, over a store with a campaign big enough to be caught mid-way:
// SIGINT and SIGTERM remove the staging folder and say so (130 / 143), the site still verifies;
// after SIGKILL the folder stays, --verify reports it as one site_staging_leftover line, and the
// next publication removes it, says so, and the site verifies.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

let dir: string;
let store: string;
const site = (): string => join(dir, 'site');

const evals = (args: readonly string[]) => {
  const result = spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};
const staging = (): string[] =>
  existsSync(join(site(), 'campaigns'))
    ? readdirSync(join(site(), 'campaigns')).filter((name) => name.startsWith('.publishing-'))
    : [];

/** Starts publishing the big campaign, waits for its staging folder, sends `signal`; its exit and stderr. */
async function stopMidway(
  signal: NodeJS.Signals,
  threads = '1',
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [EVALS_BIN, 'publish', '--store', store, '--out', site(), '--campaign', 'big', '--threads', threads],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  const deadline = Date.now() + 60_000;
  // The staging folder holds its first pages: the publication is under way.
  while (!staging().some((name) => existsSync(join(site(), 'campaigns', name, 'attempts')))) {
    if (Date.now() > deadline) throw new Error(`no staging folder appeared: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill(signal);
  const code = await exited;
  return { code, stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-publish-interrupted-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  const cases = Object.fromEntries(Array.from({ length: 400 }, (_, n) => [`case_${n}`, n % 3 !== 0]));
  await seedCampaigns(store, [
    { campaignId: 'small', minute: 1, cases: { case_a: true } },
    { campaignId: 'big', minute: 2, cases },
  ]);
  const first = evals(['publish', '--store', store, '--out', site(), '--campaign', 'small']);
  expect(first.status, first.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evals publish stopped part-way', () => {
  it.each([
    ['SIGINT', 130, '1'],
    ['SIGTERM', 143, '1'],
    // A page worker still writing when the signal comes cannot refill the folder: it is moved aside, then removed.
    ['SIGINT', 130, '2'],
  ] as const)(
    '%s removes the staging folder, says so and exits %i (%s thread(s)); the site still verifies',
    async (signal, code, threads) => {
      const stopped = await stopMidway(signal, threads);
      expect(stopped.code).toBe(code);
      expect(stopped.stderr).toContain(`evals: interrupted (${signal}): publication into`);
      expect(stopped.stderr).toContain('was removed (cleaned up)');
      expect(staging()).toEqual([]);
      expect(existsSync(join(site(), 'campaigns', 'big'))).toBe(false);
      expect(evals(['publish', '--verify', site()]).status).toBe(0);
    },
  );

  it('after SIGKILL, --verify reports the staging folder as one issue naming the fix; the next publication removes it', async () => {
    const killed = await stopMidway('SIGKILL');
    expect(killed.code).toBe(null);
    const [left, ...more] = staging();
    expect(more).toEqual([]);
    const verify = evals(['publish', '--verify', site()]);
    expect(verify.status).toBe(1);
    const lines = verify.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`site_staging_leftover campaigns/${left ?? ''}`);
    expect(lines[1]).toContain('`evals publish` into this site again removes it');
    const again = evals(['publish', '--store', store, '--out', site(), '--campaign', 'small']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(
        `evals: removed campaigns/${left ?? ''}: the staging folder of a publication that did not finish \\(its publisher, pid [0-9]+, is gone\\)`,
      ),
    );
    expect(staging()).toEqual([]);
    expect(evals(['publish', '--verify', site()]).status).toBe(0);
  });
});
