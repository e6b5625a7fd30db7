// A full disk under `evals publish`'s folder writer (folder-writer.ts, which writes with its own
// synchronous calls, not node's atomic writer): a page whose write or create fails with ENOSPC,
// EDQUOT, EROFS or EFBIG is node's coded full-disk error (paperclip_output_unwritable,
// output_write_failed) naming the page and the file system, and no half-written page is left
// (nor recorded for the manifest). The failure is injected into the fs call the writer makes.
import fs, { existsSync, readdirSync } from 'node:fs';
import fsPromises, { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

import { FolderWriter } from '../src/site/folder-writer.ts';
import { publishSite } from '../src/site/publish.ts';

const CODES = ['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG'] as const;
const ADVICE: Record<(typeof CODES)[number], RegExp> = {
  ENOSPC: /is full: free space on the file system holding /,
  EDQUOT: /quota on the file system holding .* is used up: free space on the file system holding /,
  EROFS: /is read-only: name a path on a writable file system/,
  EFBIG: /the file is larger than the file system holding .* allows/,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-folder-writer-full-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

const failure = (code: string, syscall: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: the file system takes no more, ${syscall}`), {
    code,
    syscall,
    errno: -1,
  });

describe('a full disk while a campaign folder is written', () => {
  it.each(CODES.flatMap((code) => (['write', 'open'] as const).map((call) => [code, call] as const)))(
    '%s at %s: coded, naming the page and the file system, and no partial page left or recorded',
    async (code, call) => {
      const folder = await mkdtemp(join(dir, 'campaign-'));
      const writer = new FolderWriter(folder);
      writer.write('index.html', 'kept');
      if (call === 'write') {
        const real = fs.writeSync;
        // Half the page reaches the disk, then it is full.
        vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, bytes: Uint8Array, offset: number) => {
          real(fd, bytes, offset, 3);
          throw failure(code, 'write');
        }) as unknown as typeof fs.writeSync);
      } else
        vi.spyOn(fs, 'openSync').mockImplementation(() => {
          throw failure(code, 'open');
        });
      syncBuiltinESMExports();
      const page = join(folder, 'attempts', 'a.html');
      let thrown: unknown;
      try {
        writer.write('attempts/a.html', 'a page of some length');
      } catch (error) {
        thrown = error;
      }
      vi.restoreAllMocks();
      syncBuiltinESMExports();
      expect(thrown).toMatchObject({
        code: 'paperclip_output_unwritable',
        issues: [{ code: 'output_write_failed', component: page, received: code }],
        message: expect.stringMatching(ADVICE[code]) as unknown,
      });
      expect((thrown as Error).message).toContain(`the file system holding ${folder}`);
      expect(existsSync(page)).toBe(false);
      expect(readdirSync(folder).sort()).toEqual(['attempts', 'index.html']);
      expect(writer.entries.toEntries().map((entry) => entry.path)).toEqual(['index.html']);
    },
  );

  it('passes any other error on as it is (a page already there: EEXIST)', () => {
    const writer = new FolderWriter(dir);
    writer.write('same.html', 'one');
    expect(() => {
      writer.write('same.html', 'two');
    }).toThrow(/EEXIST/);
  });

  it.each(CODES)(
    '%s when the campaign manifest is written: the same coded error, and the site as it was',
    async (code) => {
      const store = `sqlite:${join(dir, `book-${code}.sqlite`)}`;
      await seedCampaigns(store, [{ campaignId: 'c1', minute: 1, cases: { case_a: true } }]);
      const site = join(dir, `site-${code}`);
      const real = fsPromises.writeFile;
      vi.spyOn(fsPromises, 'writeFile').mockImplementation(((path: unknown, ...rest: unknown[]) =>
        typeof path === 'string' && path.endsWith('bundle-manifest.json')
          ? Promise.reject(failure(code, 'write'))
          : (real as (...args: unknown[]) => Promise<void>)(path, ...rest)) as typeof fsPromises.writeFile);
      syncBuiltinESMExports();
      const thrown = await publishSite({ store, out: site }).catch((error: unknown) => error);
      vi.restoreAllMocks();
      syncBuiltinESMExports();
      expect(thrown).toMatchObject({
        code: 'paperclip_output_unwritable',
        issues: [{ code: 'output_write_failed', received: code }],
        message: expect.stringMatching(ADVICE[code]) as unknown,
      });
      expect((thrown as Error).message).toContain('bundle-manifest.json');
      expect(existsSync(join(site, 'campaigns', 'c1'))).toBe(false);
    },
  );
});
