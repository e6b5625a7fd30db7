// The staging folders of `evals publish` (issue 19: a publication that is stopped leaves a site that
// verifies). A campaign folder is written into `campaigns/.publishing-<host>-<pid>-<start>-<random>`
// and renamed into place; the name says who owns it — a hash of this host's name, this process's
// pid and its start time (Linux: /proc/<pid>/stat, so a reused pid is not taken for the owner) —
// and is the lock: a folder is removed only by its owner, or by a later publication once its owner
// is gone. While a staging folder exists it is registered with node's child-cleanup (the one
// registry of what a stopped process must not leave behind), so SIGINT and SIGTERM remove it
// before the process exits (moved aside to `<name>.removing` first, so a page worker still writing
// cannot refill it). SIGKILL (or a crash) cannot be caught: the next publication into the
// site sweeps it (sweepStaging), and `--verify` reports it as one issue (stagingIssue), never as
// one unknown path per file inside it. A folder of another host, one whose owner still runs, and
// one named by an earlier version (`.publishing-<12 hex>`, no owner in its name) are left as they are.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { guardPrivatePath } from '@paperclip-evals/node';

import type { Issue } from '@paperclip-evals/contract';

import { CAMPAIGNS } from './site-files.js';

/** How every staging folder's name starts (a dot: never a campaign folder). */
export const STAGING_PREFIX = '.publishing-';

// `.removing`: moved aside by child-cleanup on a signal, before it is removed (the same owner).
const OWNED = /^\.publishing-([0-9a-f]{8})-([0-9]{1,10})-([0-9]{1,20}|x)-[0-9a-f]{12}(?:\.removing)?$/;
const LEGACY = /^\.publishing-[0-9a-f]{12}$/;

const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A process's start time in clock ticks since boot (Linux), or null where it cannot be read. */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is the first,
    // starttime (field 22) the twentieth.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start !== undefined && /^[0-9]+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

const SELF_START = startOf(process.pid) ?? 'x';

export type StagingOwner =
  | { readonly state: 'running'; readonly pid: number }
  | { readonly state: 'gone'; readonly pid: number }
  | { readonly state: 'other_host' }
  | { readonly state: 'unknown' };

/** Whose a staging folder is, by its name, and whether that publisher still runs. */
export function stagingOwner(name: string): StagingOwner {
  const owned = OWNED.exec(name);
  if (owned === null) return { state: 'unknown' };
  const [, host = '', pidText = '', start = 'x'] = owned;
  if (host !== HOST) return { state: 'other_host' };
  const pid = Number(pidText);
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return { state: 'gone', pid };
    // EPERM: a process of another user has the pid: it runs.
  }
  // The pid runs: it is the owner unless it started at another time (the pid was reused).
  if (start !== 'x') {
    const now = startOf(pid);
    if (now !== null && now !== start) return { state: 'gone', pid };
  }
  return { state: 'running', pid };
}

export interface Staging {
  /** The staging folder (absolute). */
  readonly path: string;
  /** Removes it (whatever is in it) and forgets it; a signal no longer needs to. */
  readonly close: () => Promise<void>;
}

/** Makes this process's staging folder under the site's campaigns/, removed on SIGINT/SIGTERM too. */
export async function openStaging(site: string): Promise<Staging> {
  const path = join(
    site,
    CAMPAIGNS,
    `${STAGING_PREFIX}${HOST}-${process.pid}-${SELF_START}-${randomBytes(6).toString('hex')}`,
  );
  await mkdir(path);
  const release = guardPrivatePath(path);
  return {
    path,
    close: async () => {
      try {
        await rm(path, { recursive: true, force: true });
      } finally {
        release();
      }
    },
  };
}

export interface StagingSweep {
  /** Staging folders of publishers that are gone, removed now (`campaigns/<name>`, with the pid). */
  readonly removed: readonly { readonly folder: string; readonly pid: number }[];
  /** Staging folders left as they are, and why. */
  readonly kept: readonly { readonly folder: string; readonly why: string }[];
}

/** Why a staging folder that is not removed stays, and what to do: for sweepStaging and verify alike. */
function keptWhy(folder: string, owner: StagingOwner): string {
  switch (owner.state) {
    case 'running':
      return `its publisher (pid ${owner.pid} on this host) is still running: it removes the folder when it ends`;
    case 'other_host':
      return `it was made by a publisher on another host, which this one cannot ask: once no publication of this site runs there, remove it (rm -r ${folder})`;
    case 'unknown':
      return `its name does not say which publisher made it (an earlier version's): once no publication of this site runs, remove it (rm -r ${folder})`;
    case 'gone':
      return `its publisher (pid ${owner.pid}) is gone: the next \`evals publish\` into this site removes it`;
  }
}

/**
 * Removes every staging folder under the site's campaigns/ whose publisher (on this host) is gone;
 * leaves the others, each with why. A folder that cannot be removed is kept with the reason.
 */
export async function sweepStaging(site: string): Promise<StagingSweep> {
  const names = (await readdir(join(site, CAMPAIGNS)).catch(() => [] as string[]))
    .filter((name) => name.startsWith(STAGING_PREFIX))
    .sort();
  const removed: { folder: string; pid: number }[] = [];
  const kept: { folder: string; why: string }[] = [];
  for (const name of names) {
    const folder = `${CAMPAIGNS}/${name}`;
    const owner = stagingOwner(name);
    if (owner.state !== 'gone') {
      kept.push({ folder, why: keptWhy(folder, owner) });
      continue;
    }
    try {
      await rm(join(site, CAMPAIGNS, name), { recursive: true, force: true });
      removed.push({ folder, pid: owner.pid });
    } catch (error) {
      kept.push({
        folder,
        why: `its publisher (pid ${owner.pid}) is gone, but it could not be removed (${(error as NodeJS.ErrnoException).code ?? String(error)}): remove it (rm -r ${folder})`,
      });
    }
  }
  return { removed, kept };
}

/** Whether a site-relative folder path is a staging folder (`campaigns/.publishing-…`). */
export function isStagingFolder(path: string): boolean {
  const [top, name, ...rest] = path.split('/');
  return top === CAMPAIGNS && name !== undefined && name.startsWith(STAGING_PREFIX) && rest.length === 0;
}

/** `--verify`'s one issue for a staging folder found in a site: what it is and the fix. */
export function stagingIssue(folder: string): Issue {
  const name = folder.split('/').pop() ?? folder;
  const owner = stagingOwner(name);
  const fix =
    owner.state === 'gone'
      ? `its publisher (pid ${owner.pid}) is gone: \`evals publish\` into this site again removes it, or remove it (rm -r ${folder})`
      : keptWhy(folder, owner);
  return {
    code: 'site_staging_leftover',
    message: `${folder} is the staging folder of a publication that did not finish (interrupted or killed), not part of the site; ${fix}`,
    path: folder,
    expected: 'no staging folder (a publication removes its own when it ends)',
    received: LEGACY.test(name) ? 'a staging folder of an earlier version' : 'a staging folder',
  };
}
