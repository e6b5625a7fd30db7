// openStore's rule for the SQLite file a writer may create (ingest, the checks engine's --store):
// a regular file or nothing yet, in a folder that exists (only the default store makes its folder);
// a directory, FIFO, socket, device or missing folder is refused with the contract's output error
// and left as it was, never opened, created or replaced.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractError } from '@paperclip-evals/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '../src/ledger/open-store.ts';

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

  it('creates a new file in a folder that exists', async () => {
    const path = join(dir, 'book.sqlite');
    const store = await openStore(`sqlite:${path}`);
    await store.close();
    expect(lstatSync(path).isFile()).toBe(true);
  });

  // A typo in a path the user named must not start a second, empty ledger in new folders.
  it.each([
    ['one missing folder', ['missing'], 'missing'],
    ['several', ['deep', 'a', 'b'], 'deep'],
  ])(
    'refuses a path in a missing folder (%s), naming the path; creates nothing',
    async (_name, folders, top) => {
      const path = join(dir, ...folders, 'book.sqlite');
      const error = await openStore(`sqlite:${path}`).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ContractError);
      const coded = error as ContractError;
      expect(coded.issues[0]?.code).toBe('output_folder_missing');
      expect(coded.message).toContain(`cannot write ${path}`);
      expect(coded.message).toContain('mkdir -p');
      expect(existsSync(join(dir, top))).toBe(false);
    },
  );

  it('refuses - (stdout) and an empty path: a database needs a file', async () => {
    expect(await refusal('sqlite:-')).toBe('output_is_stream');
    await expect(openStore('sqlite:')).rejects.toThrow('needs a path');
  });

  it('makes the folder of the default store (no store named), and only of it', async () => {
    const cwd = process.cwd();
    const home = join(dir, 'home');
    mkdirSync(home);
    process.chdir(home);
    try {
      const store = await openStore();
      await store.close();
      expect(lstatSync(join(home, '.evalbook', 'evalbook.sqlite')).isFile()).toBe(true);
      // The same file named another way is a path the user named: its folder must exist.
      await expect(openStore('sqlite:./.evalbook2/evalbook.sqlite')).rejects.toThrow(
        'the folder ./.evalbook2 does not exist',
      );
    } finally {
      process.chdir(cwd);
    }
  });
});
