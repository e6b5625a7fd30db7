// Test support: temp directories and generated bundles on disk (via the synthetic generator).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { syntheticAttempt } from './synthetic.ts';
import type { SyntheticAttemptOptions } from './synthetic.ts';

export async function tempDir(prefix = 'evalbook-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes one bundle (optionally with extra top-level fields) and returns its path. */
export async function writeBundle(
  dir: string,
  name: string,
  options: SyntheticAttemptOptions = {},
  extra: Record<string, unknown> = {},
): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ ...syntheticAttempt(options), ...extra }));
  return path;
}

/** Writes `count` distinct small bundles into `dir` (attempt_00000 …). */
export async function writeBundles(
  dir: string,
  count: number,
  options: SyntheticAttemptOptions = {},
): Promise<void> {
  for (let index = 0; index < count; index++) {
    const attemptId = `attempt_${String(index).padStart(5, '0')}`;
    await writeBundle(dir, `${attemptId}.json`, { toolCalls: 1, progressEvents: 0, ...options, attemptId });
  }
}
