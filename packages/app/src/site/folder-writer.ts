// Writing a campaign folder's files into its temporary folder (`evals publish`, on the main thread
// and on each page worker alike): every file created exclusively (O_CREAT | O_EXCL: never over a
// file already there, whoever wrote it), in one synchronous write into an fd opened once for it,
// then hashed and sized from the very bytes written. Nothing keeps a page once it is on disk, so
// memory stays flat whatever the campaign's size (100,000 pages are 100,000 writes, issue 19); what
// is kept of each file for the manifest is packed (ManifestEntries: its path, its sha256 as 32 bytes
// in one buffer, its size), not an object and a 71-character digest string per file.
import { createHash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { fullDiskError } from '@paperclip-evals/node';

import type { ManifestEntry } from './site-files.js';

const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;
const DIGEST_BYTES = 32;
/** What a failed write leaves: the campaign folder is written in a temporary folder, removed on failure. */
export const FOLDER_LEFT =
  'the partial file was removed, and the campaign folder being written (a temporary folder) is removed: the site is as it was';

/** Manifest entries as they cross threads (a page worker's batch): paths, sizes, digests end to end. */
export interface PackedEntries {
  readonly paths: readonly string[];
  readonly sizes: readonly number[];
  /** Each entry's sha256, DIGEST_BYTES bytes each, in the entries' order. */
  readonly digests: Uint8Array;
}

/** The files written, in the order written (the manifest sorts them), packed. */
export class ManifestEntries {
  private paths: string[] = [];
  private sizes: number[] = [];
  private digests = Buffer.allocUnsafe(DIGEST_BYTES * 1024);

  get length(): number {
    return this.paths.length;
  }

  add(path: string, digest: Uint8Array, size: number): void {
    this.reserve(1);
    this.digests.set(digest, this.paths.length * DIGEST_BYTES);
    this.paths.push(path);
    this.sizes.push(size);
  }

  /** Appends a batch (another thread's). */
  append(batch: PackedEntries): void {
    this.reserve(batch.paths.length);
    this.digests.set(
      batch.digests.subarray(0, batch.paths.length * DIGEST_BYTES),
      this.paths.length * DIGEST_BYTES,
    );
    for (let index = 0; index < batch.paths.length; index++) {
      this.paths.push(batch.paths[index] ?? '');
      this.sizes.push(batch.sizes[index] ?? 0);
    }
  }

  /** Every entry so far as a batch (copied), and none left here. */
  take(): PackedEntries {
    const batch = {
      paths: this.paths,
      sizes: this.sizes,
      digests: new Uint8Array(this.digests.subarray(0, this.paths.length * DIGEST_BYTES)),
    };
    this.paths = [];
    this.sizes = [];
    return batch;
  }

  /** The entries as the manifest lists them (`sha256:<hex>`), made only when it is written. */
  toEntries(): ManifestEntry[] {
    return this.paths.map((path, index) => ({
      path,
      sha256: `sha256:${this.digests.toString('hex', index * DIGEST_BYTES, (index + 1) * DIGEST_BYTES)}`,
      size: this.sizes[index] ?? 0,
    }));
  }

  private reserve(more: number): void {
    const needed = (this.paths.length + more) * DIGEST_BYTES;
    if (needed <= this.digests.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.digests.length * 2));
    this.digests.copy(grown, 0, 0, this.paths.length * DIGEST_BYTES);
    this.digests = grown;
  }
}

export class FolderWriter {
  /** Every file written, in the order written (the manifest sorts them). */
  readonly entries = new ManifestEntries();
  /** A campaign folder has a few subfolders (attempts/, tests/): each made once, not per page. */
  private readonly made = new Set<string>();

  constructor(private readonly folder: string) {
    this.made.add(folder);
  }

  /** Creates `path` (inside the folder) with `content`; a file already there is an EEXIST error. */
  write(path: string, content: string | Uint8Array): void {
    const at = join(this.folder, path);
    const parent = dirname(at);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let fd: number | undefined;
    try {
      if (!this.made.has(parent)) {
        // recursive: another thread may have made it first.
        mkdirSync(parent, { recursive: true });
        this.made.add(parent);
      }
      fd = openSync(at, CREATE_NEW, 0o666);
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      // Nothing half-written: the partial file is removed; a full disk (node's FULL_DISK_CODES) is
      // the coded error that names the file and what to do, any other error passes on as it is.
      if (fd !== undefined) {
        closeSync(fd);
        rmSync(at, { force: true });
      }
      throw fullDiskError(at, error, this.folder, FOLDER_LEFT) ?? error;
    }
    closeSync(fd);
    this.entries.add(path, createHash('sha256').update(bytes).digest(), bytes.length);
  }
}
