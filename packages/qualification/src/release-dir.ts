// The release directory: which file is which (SHA256SUMS, the one *.tgz, the host's
// paperclip-runnerd-<platform>-<arch>, the App's clean-consumer record), and SHA256SUMS parsed
// strictly and verified against every file, streamed. Nothing in the directory is ignored: a file
// SHA256SUMS does not list, a listed file that is missing or not a regular file, a digest that
// differs and a malformed line are each an issue naming the file.
import { isUtf8 } from 'node:buffer';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ContractError, sha256Digest } from '@paperclip-evals/contract';
import {
  FILE_KINDS,
  FILE_KIND_PHRASE,
  digestFile,
  fileKindOf,
  notRegularMessage,
  readRegularFile,
} from '@paperclip-evals/node';

import { APP_RECORD_FILE, RUNNERD_FILE_PREFIX, SHA256SUMS_FILE } from './release-files.js';

import type { Stats } from 'node:fs';
import type { Issue, Sha256Digest } from '@paperclip-evals/contract';
import type { FileKind } from '@paperclip-evals/node';

import type { QualificationIssue } from './record.js';

export { APP_RECORD_FILE, RUNNERD_FILE_PREFIX, SHA256SUMS_FILE };
/** SHA256SUMS larger than this is refused unread. */
export const MAX_SHA256SUMS_BYTES = 1024 * 1024;
/**
 * The largest release file digested (1 GiB: over the tarball's 640 MiB and an executable's 512 MiB
 * caps, so a file larger could pass no check). A larger one is refused by its size (file_too_large)
 * before it is read or hashed, and is unverified.
 */
export const MAX_RELEASE_FILE_BYTES = 1024 * 1024 * 1024;

/** `<64 lowercase hex><two spaces><plain file name>`: what `sha256sum` writes in text mode. */
const SUMS_LINE = /^([0-9a-f]{64}) {2}(.+)$/s;

export interface Sha256SumsEntry {
  readonly file: string;
  readonly sha256: Sha256Digest;
  /** 1-based line number. */
  readonly line: number;
}

export interface ParsedSha256Sums {
  readonly entries: readonly Sha256SumsEntry[];
  readonly issues: readonly QualificationIssue[];
}

/** The name of the runnerd executable this host can run, e.g. paperclip-runnerd-linux-x64. */
export function runnerdFileName(platform: string = process.platform, arch: string = process.arch): string {
  return `${RUNNERD_FILE_PREFIX}${platform}-${arch}`;
}

/**
 * Parses SHA256SUMS text strictly: one `<64 lowercase hex>  <name>` per line, every line ending
 * in a newline except possibly the last, no blank lines, no CR, plain file names only (no
 * directories, no `.`/`..`, no backslash escapes, no control characters), no name twice, not
 * SHA256SUMS itself, at least one entry. Never throws; every bad line is an issue.
 */
export function parseSha256Sums(text: string): ParsedSha256Sums {
  const entries: Sha256SumsEntry[] = [];
  const issues: QualificationIssue[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const seen = new Map<string, number>();
  lines.forEach((raw, index) => {
    const line = index + 1;
    const match = SUMS_LINE.exec(raw);
    const name = match?.[2];
    const hex = match?.[1];
    if (name === undefined || hex === undefined) {
      issues.push({
        code: 'sums_line_malformed',
        message: `SHA256SUMS line ${line} is not "<64 lowercase hex digits>  <file name>"`,
        file: SHA256SUMS_FILE,
        expected: '<64 lowercase hex digits>  <file name>',
        received: raw.length > 200 ? `${raw.slice(0, 197)}...` : raw,
      });
      return;
    }
    const nameProblem = fileNameProblem(name);
    if (nameProblem !== null) {
      issues.push({
        code: 'sums_file_name_invalid',
        message: `SHA256SUMS line ${line} names ${JSON.stringify(name)}: ${nameProblem}`,
        file: name,
        expected: 'a plain file name of the release directory',
        received: name,
      });
      return;
    }
    if (name === SHA256SUMS_FILE) {
      issues.push({
        code: 'sums_lists_itself',
        message: `SHA256SUMS line ${line} lists SHA256SUMS itself`,
        file: name,
      });
      return;
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      issues.push({
        code: 'sums_duplicate_entry',
        message: `SHA256SUMS lists ${name} twice (lines ${earlier} and ${line})`,
        file: name,
      });
      return;
    }
    seen.set(name, line);
    entries.push({ file: name, sha256: `sha256:${hex}`, line });
  });
  if (lines.length === 0) {
    issues.push({ code: 'sums_empty', message: 'SHA256SUMS lists no file', file: SHA256SUMS_FILE });
  }
  return { entries, issues };
}

function fileNameProblem(name: string): string | null {
  if (name === '.' || name === '..') return 'not a file name';
  if (name.includes('/')) return 'contains "/" (only files directly in the release directory may be listed)';
  if (name.startsWith('\\') || name.includes('\\')) return 'contains a backslash (escaped names are refused)';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'contains a control character (a CR from CRLF line ends?)';
  if (name.startsWith(' ') || name.endsWith(' ')) return 'starts or ends with a space';
  return null;
}

/** What lstat found at a name of the release directory (links not followed): node's file kinds. */
export const RELEASE_ENTRY_KINDS = FILE_KINDS;
export type ReleaseEntryKind = FileKind;
/** Each kind as a message says it (node's one wording of a kind). */
export const RELEASE_ENTRY_PHRASE = FILE_KIND_PHRASE;
/** The kind of an entry from its lstat. */
export const releaseEntryKind = (stats: Stats): ReleaseEntryKind => fileKindOf(stats);
/** "<what> <name> is a directory, not a regular file": the wording of every such issue. */
export { notRegularMessage };

export interface ReleaseEntry {
  readonly name: string;
  readonly kind: ReleaseEntryKind;
}

/** What the layout check established; a null member was not found (an issue says why). */
export interface ReleaseLayout {
  readonly entries: readonly ReleaseEntry[];
  readonly sums: string | null;
  readonly tarball: string | null;
  readonly runnerd: string | null;
  readonly appRecord: string | null;
  readonly issues: readonly QualificationIssue[];
}

/** Lists the directory (without following links) and names its parts. Rejects if it cannot be read. */
export async function readReleaseLayout(
  releaseDir: string,
  options: { readonly platform?: string; readonly arch?: string } = {},
): Promise<ReleaseLayout> {
  const names = (await readdir(releaseDir)).sort();
  const entries: ReleaseEntry[] = [];
  for (const name of names) {
    const stats = await lstat(join(releaseDir, name));
    entries.push({ name, kind: releaseEntryKind(stats) });
  }
  const issues: QualificationIssue[] = [];
  const regular = (name: string): boolean =>
    entries.some((entry) => entry.name === name && entry.kind === 'file');
  const notRegular = (name: string, what: string): void => {
    const entry = entries.find((candidate) => candidate.name === name);
    if (entry !== undefined && entry.kind !== 'file') {
      issues.push({
        code: 'entry_not_regular_file',
        message: notRegularMessage(`${what} ${name}`, entry.kind),
        file: name,
        expected: 'a regular file',
        received: entry.kind,
      });
    }
  };

  let sums: string | null = SHA256SUMS_FILE;
  if (!regular(SHA256SUMS_FILE)) {
    sums = null;
    notRegular(SHA256SUMS_FILE, 'SHA256SUMS');
    if (!entries.some((entry) => entry.name === SHA256SUMS_FILE)) {
      issues.push({
        code: 'sums_missing',
        message: 'the release directory has no SHA256SUMS',
        file: SHA256SUMS_FILE,
      });
    }
  }

  const tarballs = entries.filter((entry) => entry.name.endsWith('.tgz'));
  let tarball: string | null = null;
  if (tarballs.length === 0) {
    issues.push({
      code: 'tarball_missing',
      message: 'the release directory holds no *.tgz (the packed @paperclipai/paperclip-runner)',
      expected: 'exactly one *.tgz',
      received: 'none',
    });
  } else if (tarballs.length > 1) {
    issues.push({
      code: 'tarball_ambiguous',
      message: `the release directory holds ${tarballs.length} *.tgz files; exactly one is expected`,
      expected: 'exactly one *.tgz',
      received: tarballs.map((entry) => entry.name),
    });
  } else if (tarballs[0] !== undefined) {
    if (tarballs[0].kind === 'file') tarball = tarballs[0].name;
    else notRegular(tarballs[0].name, 'the tarball');
  }

  const runnerdName = runnerdFileName(options.platform, options.arch);
  let runnerd: string | null = null;
  if (regular(runnerdName)) runnerd = runnerdName;
  else if (entries.some((entry) => entry.name === runnerdName)) notRegular(runnerdName, 'runnerd');
  else {
    const others = entries.filter((entry) => entry.name.startsWith(RUNNERD_FILE_PREFIX)).map((e) => e.name);
    issues.push({
      code: 'runnerd_missing',
      message: `the release directory has no ${runnerdName} (the runnerd this host can run)`,
      file: runnerdName,
      expected: runnerdName,
      received: others.length === 0 ? 'none' : others,
    });
  }

  // Only present here: the App record is read (and judged) by the app-record check, once
  // SHA256SUMS verified it; nothing of the release is read before its listed digest matched.
  let appRecord: string | null = null;
  if (regular(APP_RECORD_FILE)) appRecord = APP_RECORD_FILE;
  else if (entries.some((entry) => entry.name === APP_RECORD_FILE))
    notRegular(APP_RECORD_FILE, 'the App record');
  else {
    issues.push({
      code: 'app_record_missing',
      message: `the release directory has no ${APP_RECORD_FILE} (the App's clean-consumer record)`,
      file: APP_RECORD_FILE,
    });
  }
  return { entries, sums, tarball, runnerd, appRecord, issues };
}

export interface Sha256SumsVerification {
  /** Digest of SHA256SUMS itself, when it could be read. */
  readonly sumsSha256: Sha256Digest | null;
  /** What SHA256SUMS says each listed file should be (well-formed lines only). */
  readonly expected: ReadonlyMap<string, Sha256Digest>;
  /** Computed digest of every regular file of the directory except SHA256SUMS. */
  readonly computed: Readonly<Record<string, Sha256Digest>>;
  /**
   * The files whose computed digest is the one SHA256SUMS lists, with it: the only files of the
   * release a check may run, extract or read (see verifiedDigest).
   */
  readonly verified: ReadonlyMap<string, Sha256Digest>;
  readonly verifiedCount: number;
  readonly issues: readonly QualificationIssue[];
}

/** Verifies SHA256SUMS against the directory. Every file is digested as a stream. */
export async function verifySha256Sums(
  releaseDir: string,
  layout: ReleaseLayout,
): Promise<Sha256SumsVerification> {
  const issues: QualificationIssue[] = [];
  const computed: Record<string, Sha256Digest> = {};
  const tooLarge = new Set<string>();
  for (const entry of layout.entries) {
    if (entry.kind === 'file' && entry.name !== SHA256SUMS_FILE) {
      // Its size before its digest: a file over the cap is never read (node's digestFile, EFBIG).
      const digested = await digestFile(join(releaseDir, entry.name), {
        maxBytes: MAX_RELEASE_FILE_BYTES,
      }).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'EFBIG') throw error;
        return null;
      });
      if (digested !== null) computed[entry.name] = digested.digest;
      else {
        tooLarge.add(entry.name);
        issues.push({
          code: 'file_too_large',
          message: `${entry.name} is over the ${MAX_RELEASE_FILE_BYTES}-byte limit of a release file (not read), so it is unverified`,
          file: entry.name,
          expected: `at most ${MAX_RELEASE_FILE_BYTES} bytes`,
          received: `more than ${MAX_RELEASE_FILE_BYTES} bytes`,
        });
      }
    }
  }
  const expected = new Map<string, Sha256Digest>();
  let sumsSha256: Sha256Digest | null = null;
  if (layout.sums !== null) {
    const path = join(releaseDir, layout.sums);
    const size = (await lstat(path)).size;
    if (size > MAX_SHA256SUMS_BYTES) {
      issues.push({
        code: 'sums_too_large',
        message: `SHA256SUMS is ${size} bytes, over the ${MAX_SHA256SUMS_BYTES}-byte limit`,
        file: SHA256SUMS_FILE,
        expected: `at most ${MAX_SHA256SUMS_BYTES} bytes`,
        received: size,
      });
    } else {
      // Never read past the limit, however the file grows after its size was taken.
      const bytes = await readRegularFile(path, { maxBytes: MAX_SHA256SUMS_BYTES }).catch(
        (error: unknown) => {
          if (!(error instanceof ContractError)) throw error;
          return null;
        },
      );
      if (bytes === null)
        issues.push({
          code: 'sums_too_large',
          message: `SHA256SUMS grew over the ${MAX_SHA256SUMS_BYTES}-byte limit while it was read (reading stopped)`,
          file: SHA256SUMS_FILE,
          expected: `at most ${MAX_SHA256SUMS_BYTES} bytes`,
          received: `more than ${MAX_SHA256SUMS_BYTES} bytes`,
        });
      else {
        sumsSha256 = sha256Digest(bytes);
        if (!isUtf8(bytes)) {
          issues.push({
            code: 'sums_not_utf8',
            message: 'SHA256SUMS is not UTF-8 text',
            file: SHA256SUMS_FILE,
          });
        } else {
          const parsed = parseSha256Sums(bytes.toString('utf8'));
          issues.push(...parsed.issues);
          for (const entry of parsed.entries) expected.set(entry.file, entry.sha256);
        }
      }
    }
  } else {
    issues.push({
      code: 'sums_unavailable',
      message: 'SHA256SUMS is missing or not a regular file, so no file can be verified',
      file: SHA256SUMS_FILE,
    });
  }

  const verified = new Map<string, Sha256Digest>();
  for (const [file, sha256] of expected) {
    const entry = layout.entries.find((candidate) => candidate.name === file);
    if (entry === undefined) {
      issues.push({
        code: 'file_missing',
        message: `SHA256SUMS lists ${file}, which is not in the release directory`,
        file,
        expected: sha256,
        received: 'missing',
      });
      continue;
    }
    const actual = computed[file];
    if (tooLarge.has(file)) continue; // file_too_large already says why
    if (entry.kind !== 'file' || actual === undefined) {
      issues.push({
        code: 'file_not_regular',
        message: notRegularMessage(`SHA256SUMS lists ${file}, which`, entry.kind),
        file,
        expected: 'a regular file',
        received: entry.kind,
      });
      continue;
    }
    if (actual !== sha256) {
      issues.push({
        code: 'digest_mismatch',
        message: `${file} does not match its SHA256SUMS digest`,
        file,
        expected: sha256,
        received: actual,
      });
      continue;
    }
    verified.set(file, sha256);
  }
  if (layout.sums !== null) {
    for (const entry of layout.entries) {
      if (entry.name === SHA256SUMS_FILE || expected.has(entry.name)) continue;
      issues.push({
        code: 'file_unlisted',
        message: `${entry.name} (${RELEASE_ENTRY_PHRASE[entry.kind]}) is in the release directory but not in SHA256SUMS`,
        file: entry.name,
        expected: 'listed in SHA256SUMS',
        received: entry.kind,
      });
    }
  }
  // A SHA256SUMS that does not parse verifies nothing, even the lines that did.
  if (issues.some((issue) => SUMS_TEXT_CODES.has(issue.code))) verified.clear();
  return { sumsSha256, expected, computed, verified, verifiedCount: verified.size, issues };
}

/** Issues that make SHA256SUMS itself untrustworthy (not one file of it). */
const SUMS_TEXT_CODES = new Set([
  'sums_too_large',
  'sums_not_utf8',
  'sums_line_malformed',
  'sums_file_name_invalid',
  'sums_lists_itself',
  'sums_duplicate_entry',
  'sums_empty',
]);

/**
 * The digest SHA256SUMS lists for `file` when the file matched it, or why it cannot be used: every
 * check that runs, extracts or reads a file of the release goes through this, so an unverified
 * file is skipped "needs sha256sums: <why>" and never used.
 */
export function verifiedDigest(
  sums: Sha256SumsVerification,
  file: string,
): { readonly sha256: Sha256Digest } | { readonly why: string } {
  const sha256 = sums.verified.get(file);
  if (sha256 !== undefined) return { sha256 };
  if (sums.issues.some((issue) => SUMS_TEXT_CODES.has(issue.code)))
    return { why: `SHA256SUMS does not parse, so ${file} is unverified` };
  if (!sums.expected.has(file)) return { why: `SHA256SUMS gives no digest for ${file}` };
  if (sums.issues.some((issue) => issue.code === 'file_too_large' && issue.file === file))
    return {
      why: `${file} is over the ${MAX_RELEASE_FILE_BYTES}-byte limit of a release file, so it is unverified`,
    };
  if (sums.computed[file] === undefined) return { why: `${file} is not a regular file` };
  return { why: `${file} does not match its SHA256SUMS digest, so nothing of it is used` };
}

/**
 * Why `path` (as --release-dir names it) cannot be a release directory — it does not exist, or is not
 * a folder — as one issue at `--release-dir` with what a release directory holds; null when it is a
 * folder. evals qualify and evals run say it alike (each under its own package's error).
 */
export async function releaseDirIssue(path: string): Promise<Issue | null> {
  const found = await stat(resolve(path)).catch(
    (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'missing',
  );
  if (typeof found !== 'string' && found.isDirectory()) return null;
  const what = typeof found === 'string' ? 'does not exist' : 'is not a directory';
  return {
    code: 'release_dir_invalid',
    message: `${path} ${what}: name the folder a release was built into`,
    path: '--release-dir',
    expected: `a release directory: ${SHA256SUMS_FILE}, one *.tgz and ${RUNNERD_FILE_PREFIX}<platform>-<arch>`,
    received: typeof found === 'string' ? found : 'a file',
  };
}
