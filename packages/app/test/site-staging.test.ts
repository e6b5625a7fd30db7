// The staging folders of `evals publish` (staging.ts): who owns one, by its name; a publication
// removes only those whose publisher is gone (a dead pid, or a pid reused by a later process) and
// leaves a running publisher's, another host's and an earlier version's, each with why; `--verify`
// reports a staging folder as ONE site_staging_leftover issue naming the fix, however many files it
// holds (it used to be one site_unknown_path per file: 8,578 lines for a 4,000-attempt campaign).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';
import { guardedCounts } from '@paperclip-evals/node';
import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

import { publishSite } from '../src/site/publish.ts';
import { openStaging, stagingOwner, sweepStaging } from '../src/site/staging.ts';
import { verifySite } from '../src/site/verify.ts';

import type { StagingSweep } from '../src/site/staging.ts';

const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const startOf = (pid: number): string =>
  readFileSync(`/proc/${pid}/stat`, 'utf8')
    .slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2)
    .split(' ')[19] ?? 'x';
/** A pid no process can have: one past the kernel's largest. */
const deadPid = (): number => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim()) + 1;
const name = (host: string, pid: number, start: string): string =>
  `.publishing-${host}-${pid}-${start}-0123456789ab`;

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-staging-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [{ campaignId: 'c1', minute: 1, cases: { case_a: true, case_b: false } }]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A site folder whose campaigns/ holds each named staging folder, with a few files in it. */
async function siteWith(site: string, names: readonly string[]): Promise<void> {
  for (const folder of names) {
    await mkdir(join(site, 'campaigns', folder, 'attempts'), { recursive: true });
    for (let n = 0; n < 30; n++)
      await writeFile(join(site, 'campaigns', folder, 'attempts', `a${n}.html`), 'x');
  }
}

describe('stagingOwner', () => {
  it.each([
    ['this process', () => name(HOST, process.pid, startOf(process.pid)), 'running'],
    ['this process, start time unknown', () => name(HOST, process.pid, 'x'), 'running'],
    ['a pid no process has', () => name(HOST, deadPid(), '1'), 'gone'],
    ['a running pid that started at another time (reused)', () => name(HOST, process.pid, '1'), 'gone'],
    ['another host', () => name('ffffffff', process.pid, 'x'), 'other_host'],
    ['an earlier version (no owner in the name)', () => '.publishing-0123456789ab', 'unknown'],
  ])('%s', (_what, make, state) => {
    expect(stagingOwner(make()).state).toBe(state);
  });
});

describe('a publication sweeps what a gone publisher left, and only that', () => {
  it('removes the gone and reused owners’ folders, keeps the others with why, and publishes a site that lists them', async () => {
    const site = join(dir, 'swept');
    const gone = name(HOST, deadPid(), '1');
    const reused = name(HOST, process.pid, '1');
    const live = name(HOST, process.pid, startOf(process.pid));
    const other = name('ffffffff', 1, 'x');
    const legacy = '.publishing-0123456789ab';
    await siteWith(site, [gone, reused, live, other, legacy]);
    const sweeps: StagingSweep[] = [];
    await publishSite({ store, out: site, onStaging: (sweep) => sweeps.push(sweep) });
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]?.removed.map((entry) => entry.folder).sort()).toEqual(
      [`campaigns/${gone}`, `campaigns/${reused}`].sort(),
    );
    expect(sweeps[0]?.kept.map((entry) => entry.folder).sort()).toEqual(
      [`campaigns/${live}`, `campaigns/${other}`, `campaigns/${legacy}`].sort(),
    );
    expect(sweeps[0]?.kept.find((entry) => entry.folder.endsWith(live))?.why).toMatch(/still running/);
    expect(sweeps[0]?.kept.find((entry) => entry.folder.endsWith(legacy))?.why).toMatch(
      /rm -r campaigns\/\.publishing-0123456789ab/,
    );
    expect((await readdir(join(site, 'campaigns'))).sort()).toEqual(['c1', legacy, live, other].sort());
    // Each folder kept is one issue, whatever it holds (30 files each here).
    const issues = (await verifySite(site)).issues;
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual(
      [legacy, live, other].sort().map((folder) => ['site_staging_leftover', `campaigns/${folder}`]),
    );
    expect(issues.find((issue) => issue.path?.endsWith(live))?.message).toMatch(/still running/);
  });

  it('a publication with nothing to sweep says nothing of it, and its own staging folder is gone after', async () => {
    const site = join(dir, 'clean');
    const sweeps: StagingSweep[] = [];
    await publishSite({ store, out: site, onStaging: (sweep) => sweeps.push(sweep) });
    expect(sweeps).toEqual([]);
    expect(await readdir(join(site, 'campaigns'))).toEqual(['c1']);
    expect((await verifySite(site)).issues).toEqual([]);
  });
});

describe('--verify and a staging folder left by a killed publisher', () => {
  it('is one site_staging_leftover issue naming the fix, not one unknown path per file', async () => {
    const site = join(dir, 'killed');
    await publishSite({ store, out: site });
    const gone = name(HOST, deadPid(), '1');
    await siteWith(site, [gone]);
    const verification = await verifySite(site);
    expect(
      schemaErrors('https://paperclip-evals.dev/schemas/site-verification/v1.json', verification),
    ).toEqual([]);
    const { issues } = verification;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'site_staging_leftover', path: `campaigns/${gone}` });
    expect(issues[0]?.message).toMatch(/`evals publish` into this site again removes it/);
    // And it does.
    await publishSite({ store, out: site });
    expect(existsSync(join(site, 'campaigns', gone))).toBe(false);
    expect((await verifySite(site)).issues).toEqual([]);
  });
});

describe('openStaging', () => {
  it('is guarded while it exists (a signal removes it), and close removes it and the guard', async () => {
    const site = join(dir, 'guarded');
    await mkdir(join(site, 'campaigns'), { recursive: true });
    const before = guardedCounts().privatePaths;
    const staging = await openStaging(site);
    expect(stagingOwner(staging.path.split('/').pop() ?? '').state).toBe('running');
    expect(guardedCounts().privatePaths).toBe(before + 1);
    await staging.close();
    expect(guardedCounts().privatePaths).toBe(before);
    expect(existsSync(staging.path)).toBe(false);
    expect((await sweepStaging(site)).removed).toEqual([]);
  });
});
