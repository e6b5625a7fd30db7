// Atomic file output for every record and report Evals writes: a temporary file beside the target
// (created exclusively), filled, flushed to disk, then renamed over the target. A reader sees the old
// file or the whole new one, never half of it; on failure the temporary file is removed.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Calls `fill` with a writer into the temporary file, then puts the file in place. */
export async function writeFileAtomically(
  path: string,
  fill: (write: (chunk: string) => Promise<void>) => Promise<void>,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o644);
  try {
    try {
      await fill(async (chunk) => {
        await handle.write(chunk);
      });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
