// Writing a campaign folder's files into its temporary folder (`evals publish`, on the main thread
// and on each page worker alike): every file created exclusively (O_CREAT | O_EXCL: never over a
// file already there, whoever wrote it), in one synchronous write into an fd opened once for it,
// then hashed and sized from the very bytes written. Nothing keeps a page once it is on disk, so
// memory stays flat whatever the campaign's size (100,000 pages are 100,000 writes, issue 19).
import { createHash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { ManifestEntry } from './site-files.js';

const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;

export class FolderWriter {
  /** Every file written, in the order written (the manifest sorts them). */
  readonly entries: ManifestEntry[] = [];
  /** A campaign folder has a few subfolders (attempts/, tests/): each made once, not per page. */
  private readonly made = new Set<string>();

  constructor(private readonly folder: string) {
    this.made.add(folder);
  }

  /** Creates `path` (inside the folder) with `content`; a file already there is an EEXIST error. */
  write(path: string, content: string | Uint8Array): void {
    const at = join(this.folder, path);
    const parent = dirname(at);
    if (!this.made.has(parent)) {
      // recursive: another thread may have made it first.
      mkdirSync(parent, { recursive: true });
      this.made.add(parent);
    }
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const fd = openSync(at, CREATE_NEW, 0o666);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    } finally {
      closeSync(fd);
    }
    this.entries.push({
      path,
      sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
    });
  }
}
