// openStore's rule for the SQLite file a writer may create (ingest, the checks engine's --store,
// policy replay into a new book): a regular file or nothing yet; a directory, FIFO, socket or device
// is refused with the contract's output error and left as it was, never opened or replaced.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractError } from '@paperclip-evals/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '../src/store.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-open-store-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(url: string): Promise<string> {
  const error = await openStore(url).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ContractError);
  expect((error as ContractError).code).toBe('paperclip_output_unwritable');
  return (error as ContractError).issues[0]?.code ?? '';
}

describe('openStore(sqlite:PATH) for a writer', () => {
  it('refuses a directory and leaves it empty', async () => {
    const path = join(dir, 'a-directory');
    mkdirSync(path);
    expect(await refusal(`sqlite:${path}`)).toBe('output_is_directory');
    expect(readdirSync(path)).toEqual([]);
  });

  it('refuses a FIFO (a database needs a regular file), which stays a FIFO', async () => {
    const path = join(dir, 'a-fifo');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    expect(await refusal(`sqlite:${path}`)).toBe('output_is_stream');
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('creates a new file, with its missing folders', async () => {
    const path = join(dir, 'new', 'folders', 'book.sqlite');
    const store = await openStore(`sqlite:${path}`);
    await store.close();
    expect(lstatSync(path).isFile()).toBe(true);
  });
});
