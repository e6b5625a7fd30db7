// `evals publish --verify SITE`: the gate before a site is uploaded anywhere (issue 19). Every defect
// found is an issue with its own code, all reported at once:
//   site_symlink            a symbolic link anywhere in the site (nothing is followed)
//   site_not_a_file         a socket, FIFO or device where a file should be
//   site_unknown_path       a path the layout does not have, or a file no manifest lists
//   site_manifest_missing   a campaign folder without its bundle-manifest.json (or an unreadable one)
//   site_file_missing       a file the manifest lists that is not there
//   site_digest_mismatch    a file whose sha256 or size is not the manifest's
//   site_script_foreign     a <script> that is not ours (ours: inline, its sha256 known and in the
//                           page's CSP), a script src, an on…= handler or a javascript: URL
//   site_remote_resource    http:, https: or // in a src/href/… attribute or a CSS url()/@import
//   site_link_broken        a local link or source whose file is not in the site
//   site_credential         a credential-shaped value (contract's credentialShapedValues; never echoed)
//   site_staging_leftover   a staging folder (campaigns/.publishing-…) a stopped publication left:
//                           one issue naming whose it is and the fix, never one per file inside it
//   site_root_invalid       a root JSON file that is not strict JSON (truncated, garbage after it)
//   site_root_schema        a root JSON file not of its schema (site-history/v1, site-latest/v1)
//   site_root_inconsistent  root files that disagree with each other or with the campaign folders
//                           (verify-root.ts); the root index.html's links are checked as any page's
// A site that passes holds only what `evals publish` wrote, byte for byte.
//
// Proportionate (a site of 100,000 pages): each file is read ONCE, synchronously (no pool of reads in
// flight), and its digest and its content checks come from those bytes; the patterns are compiled
// once, and a tag is searched for attributes only when it has an `=`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { isAscii } from 'node:buffer';
import { join, posix, resolve } from 'node:path';

import {
  DEFAULT_MAX_INPUT_BYTES,
  credentialShapedValues,
  decodeCharacterReferences,
  isContractError,
} from '@paperclip-evals/contract';
import { siteScriptHashes } from '@paperclip-evals/evalbook';
import { FILE_KIND_PHRASE, fileKindOf, notRegularMessage, readRegularFileSync } from '@paperclip-evals/node';

import type { Issue } from '@paperclip-evals/contract';
import type { SiteHistory, SiteLatest } from '@paperclip-evals/evalbook';

import { AppError } from '../errors.js';
import { threadCount } from './publish-workers.js';
import { CAMPAIGNS, MANIFEST, ROOT_FILES, isCampaignPath } from './site-files.js';
import { isStagingFolder, stagingIssue } from './staging.js';
import { ROOT_JSON, readRootJson, rootConsistencyIssues } from './verify-root.js';

import type { ManifestEntry } from './site-files.js';

export const SITE_VERIFICATION_V1 = 'paperclip-evals/site-verification/v1';

/** What `evals publish --verify --json` prints (schemas/evals/site-verification-v1.schema.json). */
export interface SiteVerification {
  readonly schema: typeof SITE_VERIFICATION_V1;
  readonly site: string;
  readonly ok: boolean;
  readonly files: number;
  readonly campaigns: number;
  readonly issues: readonly Issue[];
}

const issue = (code: string, path: string, message: string, expected: string, received: string): Issue => ({
  code,
  message,
  path,
  expected,
  received,
});

/** Every regular file under `root` (relative POSIX paths), with links and odd files as issues. */
async function walk(root: string, issues: Issue[]): Promise<string[]> {
  const files: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    const names = (await readdir(join(root, relative))).sort();
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = await lstat(join(root, path));
      if (stat.isSymbolicLink())
        issues.push(
          issue(
            'site_symlink',
            path,
            `${path} is a symbolic link`,
            'regular files and folders only',
            'a symbolic link',
          ),
        );
      else if (stat.isDirectory()) {
        if (isStagingFolder(path)) issues.push(stagingIssue(path));
        else await visit(path);
      } else if (stat.isFile()) files.push(path);
      else
        issues.push(
          issue(
            'site_not_a_file',
            path,
            notRegularMessage(path, fileKindOf(stat)),
            'a regular file',
            FILE_KIND_PHRASE[fileKindOf(stat)],
          ),
        );
    }
  };
  await visit('');
  return files;
}

export interface VerifyOptions {
  /**
   * How many threads read and check the campaign folders' files, this one included (1: this thread
   * only); default as publish's (publish-workers.ts). The result is the same whatever the count.
   */
  readonly threads?: number;
}

/** Checks a site folder; never throws for a defect (they are the result's issues). */
export async function verifySite(sitePath: string, options: VerifyOptions = {}): Promise<SiteVerification> {
  const site = resolve(sitePath);
  const top = await lstat(site).catch(() => null);
  if (top === null || top.isSymbolicLink() || !top.isDirectory())
    throw new AppError('paperclip_app_input_invalid', `${sitePath} is not a site folder`, [
      issue(
        'site_not_a_folder',
        sitePath,
        `${sitePath} is not a folder`,
        'a folder `evals publish` wrote',
        top === null ? 'nothing there' : top.isSymbolicLink() ? 'a symbolic link' : 'a file',
      ),
    ]);
  const issues: Issue[] = [];
  const files = await walk(site, issues);
  const all = new Set(files);
  const campaigns = new Map<string, string[]>();
  for (const path of files) {
    const parts = path.split('/');
    if (parts.length === 1 && (ROOT_FILES as readonly string[]).includes(path)) continue;
    if (parts[0] === CAMPAIGNS && parts.length >= 3 && !(parts[1] ?? '').startsWith('.')) {
      const folder = `${CAMPAIGNS}/${parts[1] ?? ''}`;
      let inside = campaigns.get(folder);
      if (inside === undefined) campaigns.set(folder, (inside = []));
      inside.push(parts.slice(2).join('/'));
      continue;
    }
    issues.push(
      issue(
        'site_unknown_path',
        path,
        `${path} is not part of a published site`,
        'the root files, and campaign folders under campaigns/',
        path,
      ),
    );
  }
  for (const name of ROOT_FILES)
    if (!all.has(name))
      issues.push(
        issue(
          'site_file_missing',
          name,
          `the root file ${name} is missing`,
          `${name}, as evals publish writes it`,
          'nothing',
        ),
      );
  const scripts = new Set(siteScriptHashes());
  // Each file read once: a campaign folder's files in chunks (on several threads when there are
  // the cores), each chunk's digests and content checks from the same bytes; the rest after.
  const checked = new Set<string>();
  const folders = [...campaigns].sort().map(([folder, inside]) => {
    const plan = planFolder(join(site, folder), folder, inside);
    checked.add(`${folder}/${MANIFEST}`);
    if (plan.manifestBytes !== null)
      plan.issues.push(...checkContent(`${folder}/${MANIFEST}`, plan.manifestBytes, all, scripts));
    for (const chunk of plan.chunks)
      for (const entry of chunk.entries)
        if (isCampaignPath(entry.path) && all.has(`${folder}/${entry.path}`))
          checked.add(`${folder}/${entry.path}`);
    return plan;
  });
  const chunks = folders.flatMap((plan) => plan.chunks);
  const results = await checkChunks(site, chunks, files, scripts, options.threads);
  let next = 0;
  for (const plan of folders) {
    const done = results.slice(next, next + plan.chunks.length);
    next += plan.chunks.length;
    // As one pass reports them: every file's content issues, then the folder's own.
    issues.push(...plan.issues, ...done.flatMap((result) => result.content));
    issues.push(...plan.folderIssues, ...done.flatMap((result) => result.files));
  }
  // The rest (the root files, unknown paths) once each: content as a page's, a root JSON file's
  // strict JSON and schema from the same bytes, then the root files against each other.
  const roots = new Map<string, SiteHistory | SiteLatest>();
  for (const path of files) {
    if (checked.has(path)) continue;
    const bytes = readFileSync(join(site, path));
    issues.push(...checkContent(path, bytes, all, scripts));
    if (!ROOT_JSON.has(path)) continue;
    const read = readRootJson(path, bytes);
    issues.push(...read.issues);
    if (read.value !== null) roots.set(path, read.value);
  }
  issues.push(...rootConsistencyIssues(roots, new Set(campaigns.keys())));
  return {
    schema: SITE_VERIFICATION_V1,
    site: sitePath,
    ok: issues.length === 0,
    files: files.length,
    campaigns: campaigns.size,
    issues,
  };
}

/** Files of one campaign folder checked together (by one thread). */
export interface FolderChunk {
  /** The campaign folder (`campaigns/<id>`), relative to the site. */
  readonly folder: string;
  readonly entries: readonly ManifestEntry[];
}

/** A chunk's issues: its files' content issues, and their own (missing, digest mismatch). */
export interface ChunkResult {
  readonly content: readonly Issue[];
  readonly files: readonly Issue[];
}

/** Manifest entries one thread checks at a time. */
const CHUNK_ENTRIES = 500;

/** What a verify worker is started with: the site and its files (the link checks' universe). */
export interface VerifyWorkerData {
  readonly site: string;
  readonly files: readonly string[];
}
export interface VerifyWorkerRequest {
  readonly index: number;
  readonly chunk: FolderChunk;
}
export type VerifyWorkerReply =
  | { readonly index: number; readonly result: ChunkResult }
  | { readonly index: number; readonly error: string };

/** The worker there (built; see publish-workers.ts), from dist/site/ and src/site/ alike. */
const VERIFY_WORKER = new URL('../../dist/site/verify-worker.js', import.meta.url);

/**
 * Every chunk's result, in the chunks' order: on this thread alone, or shared with verify workers
 * (each is handed the next chunk as soon as it answers; this thread checks one chunk at a time in
 * between). A worker's error, or this thread's, fails the verification (no partial result).
 */
async function checkChunks(
  site: string,
  chunks: readonly FolderChunk[],
  files: readonly string[],
  scripts: ReadonlySet<string>,
  requested: number | undefined,
): Promise<ChunkResult[]> {
  const all = new Set(files);
  const threads = threadCount(requested, chunks.length);
  if (threads === 1) return chunks.map((chunk) => checkChunk(site, chunk, all, scripts));
  const results: ChunkResult[] = [];
  const workers = Array.from(
    { length: threads - 1 },
    () => new Worker(VERIFY_WORKER, { workerData: { site, files } satisfies VerifyWorkerData, execArgv: [] }),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let answered = 0;
      let failed = false;
      const fail = (error: unknown): void => {
        failed = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const settle = (): void => {
        if (!failed && answered === chunks.length) resolve();
      };
      const give = (worker: Worker): void => {
        const index = next;
        const chunk = chunks[index];
        if (failed || chunk === undefined) return;
        next++;
        worker.postMessage({ index, chunk } satisfies VerifyWorkerRequest);
      };
      for (const worker of workers) {
        worker.on('message', (reply: VerifyWorkerReply) => {
          if ('error' in reply) {
            fail(new Error(`a verify worker failed: ${reply.error}`));
            return;
          }
          results[reply.index] = reply.result;
          answered++;
          give(worker);
          settle();
        });
        worker.once('error', fail);
        worker.once('exit', (code) => {
          if (answered < chunks.length)
            fail(new Error(`a verify worker exited (code ${code}) before it answered`));
        });
        give(worker);
      }
      const own = (): void => {
        const index = next;
        const chunk = chunks[index];
        if (failed || chunk === undefined) return;
        next++;
        try {
          results[index] = checkChunk(site, chunk, all, scripts);
        } catch (error) {
          fail(error);
          return;
        }
        answered++;
        settle();
        // Let the workers' answers in (and hand them more) before this thread's next chunk.
        setImmediate(own);
      };
      setImmediate(own);
    });
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}

interface FolderPlan {
  /** The manifest's bytes (null: unreadable), for its own content check. */
  readonly manifestBytes: Buffer | null;
  /** Issues found before its files are read (the manifest's content; a missing manifest). */
  readonly issues: Issue[];
  /** The folder's issues that come before its files' (paths the manifest does not list). */
  readonly folderIssues: readonly Issue[];
  readonly chunks: readonly FolderChunk[];
}

/** Reads a campaign folder's manifest and splits its entries into chunks. */
function planFolder(absolute: string, folder: string, present: readonly string[]): FolderPlan {
  let manifestBytes: Buffer | null = null;
  let entries: ManifestEntry[];
  try {
    manifestBytes = readFileSync(join(absolute, MANIFEST));
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as { files?: unknown };
    if (!Array.isArray(manifest.files)) throw new Error('no files[]');
    entries = manifest.files as ManifestEntry[];
  } catch {
    return {
      manifestBytes,
      issues: [],
      folderIssues: [
        issue(
          'site_manifest_missing',
          `${folder}/${MANIFEST}`,
          `${folder} has no readable ${MANIFEST}`,
          'the manifest evals publish wrote (every file, sha256 and size)',
          'missing or not JSON',
        ),
      ],
      chunks: [],
    };
  }
  const listed = new Set(entries.map((entry) => entry.path));
  const folderIssues: Issue[] = [];
  for (const path of present) {
    if (path === MANIFEST) continue;
    if (!listed.has(path) || !isCampaignPath(path))
      folderIssues.push(
        issue(
          'site_unknown_path',
          `${folder}/${path}`,
          listed.has(path)
            ? `${folder}/${path} is not a path of a campaign folder's layout (index.html, tests/<case>.html, attempts/<case>.<config>.<attempt>.html, campaign.json), though ${MANIFEST} lists it`
            : `${folder}/${path} is not listed in ${MANIFEST}`,
          listed.has(path) ? "only the layout's paths" : 'only files the manifest lists',
          path,
        ),
      );
  }
  const chunks: FolderChunk[] = [];
  for (let at = 0; at < entries.length; at += CHUNK_ENTRIES)
    chunks.push({ folder, entries: entries.slice(at, at + CHUNK_ENTRIES) });
  return { manifestBytes, issues: [], folderIssues, chunks };
}

/**
 * One chunk of a campaign folder's files against their manifest entries: each listed file there
 * (`all`: the site's files) read once, its sha256 and size compared, and — with `scripts` — its
 * content checked from the same bytes. The main thread and the verify workers run this alike.
 */
export function checkChunk(
  site: string,
  chunk: FolderChunk,
  all: ReadonlySet<string>,
  scripts: ReadonlySet<string> | null,
): ChunkResult {
  const content: Issue[] = [];
  const files: Issue[] = [];
  for (const entry of chunk.entries) {
    const path = `${chunk.folder}/${entry.path}`;
    // A listed path outside the layout that is there was reported as unknown (planFolder): once.
    if (!isCampaignPath(entry.path) && all.has(path)) continue;
    if (!isCampaignPath(entry.path) || !all.has(path)) {
      files.push(
        issue(
          'site_file_missing',
          path,
          `${path} is listed in ${MANIFEST} but is not there`,
          `a file with ${entry.sha256}`,
          'nothing',
        ),
      );
      continue;
    }
    // Its size before a byte is read: a file larger than its entry and than any page could be
    // (DEFAULT_MAX_INPUT_BYTES) is a mismatch, never read; one within it is read and its content
    // checked too, as a browser would read it.
    let bytes: Buffer;
    try {
      bytes = readRegularFileSync(join(site, path), {
        maxBytes: Math.max(entry.size, DEFAULT_MAX_INPUT_BYTES),
      });
    } catch (error) {
      if (!isContractError(error)) throw error;
      files.push(
        issue(
          'site_digest_mismatch',
          path,
          `${path} is not the file the manifest lists: it is larger than it lists and than ${DEFAULT_MAX_INPUT_BYTES} bytes (not read)`,
          `${entry.sha256}, ${entry.size} bytes`,
          typeof error.issues[0]?.received === 'string'
            ? error.issues[0].received
            : `more than ${entry.size} bytes`,
        ),
      );
      continue;
    }
    if (scripts !== null) content.push(...checkContent(path, bytes, all, scripts));
    const sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (sha256 !== entry.sha256 || bytes.length !== entry.size)
      files.push(
        issue(
          'site_digest_mismatch',
          path,
          `${path} is not the file the manifest lists`,
          `${entry.sha256}, ${entry.size} bytes`,
          `${sha256}, ${bytes.length} bytes`,
        ),
      );
  }
  return { content, files };
}

/**
 * One campaign folder against its bundle-manifest.json (publish's check of a folder already
 * there): every listed file there with its digest and size, nothing unlisted, every path one the
 * layout has. Its files' content is verifySite's to check.
 */
export async function checkCampaignFolder(absolute: string, folder: string): Promise<Issue[]> {
  const issues: Issue[] = [];
  const present = await walk(absolute, issues);
  const plan = planFolder(absolute, folder, present);
  const all = new Set(present.map((path) => `${folder}/${path}`));
  const site = absolute.slice(0, absolute.length - folder.length);
  const results = plan.chunks.map((chunk) => checkChunk(site, chunk, all, null));
  return [...issues, ...plan.folderIssues, ...results.flatMap((result) => result.files)];
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
/**
 * The tags (`<` and a letter, to the next `>`: what /<[a-zA-Z][^>]*>/g matches) that hold an `=`,
 * found by indexOf: a page has hundreds of tags and few with attributes, and a regex's match per
 * tag was the largest part of a page's check (docs/benchmarks.md Run 11).
 */
export function attributedTags(markup: string): string[] {
  const found: string[] = [];
  let equals = markup.indexOf('=');
  for (let at = markup.indexOf('<'); at >= 0 && equals >= 0;) {
    const next = markup.charCodeAt(at + 1) | 0x20;
    if (next < 0x61 || next > 0x7a) {
      at = markup.indexOf('<', at + 1);
      continue;
    }
    const end = markup.indexOf('>', at + 2);
    if (end < 0) break;
    if (equals < at) equals = markup.indexOf('=', at);
    if (equals < 0) break;
    if (equals < end) found.push(markup.slice(at, end + 1));
    at = markup.indexOf('<', end + 1);
  }
  return found;
}
const HANDLER = /\son[a-z]+\s*=/i;
const JAVASCRIPT_URL = /javascript:/i;
const URL_ATTRIBUTES = new Set([
  'src',
  'href',
  'action',
  'formaction',
  'srcset',
  'poster',
  'data',
  'xlink:href',
  'background',
  'manifest',
  'ping',
]);
// A tag's attributes in order, each quoted value taken whole (so markup inside a value, as in a
// srcdoc, is never read as the tag's own attribute); names lower-cased, values raw.
const ATTRIBUTE_TOKEN = /([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
function attributesOf(tag: string): [string, string][] {
  const inner = tag.replace(/^<[^\s>/]+/, '').replace(/\/?>$/, '');
  return matches(ATTRIBUTE_TOKEN, inner).map((match) => [(match[1] ?? '').toLowerCase(), match[2] ?? '']);
}
const STYLE_ATTRIBUTE = /\sstyle\s*=\s*("[^"]*"|'[^']*')/gi;
const STYLE_NAME = /style/i;
const STYLE_ELEMENT = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi;
const CSP_META = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/i;
const JSON_TYPE = /\btype\s*=\s*["']?application\/json/i;
const HAS_SRC = /\bsrc\s*=/i;
const CSS_URL = /url\(\s*(["']?)([^"')]*)\1\s*\)|@import\s+(["'])([^"']*)\3/gi;
/** An image a data: URL may carry (the only data: a page may name: a document could hold a script). */
const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp|avif)[;,]/i;
/** `image-set(…)` / `-webkit-image-set(…)`: its quoted strings are URLs, as `url()`'s are. */
const IMAGE_SET = /image-set\(([^)]*)\)/gi;
const CSS_STRING = /(["'])([^"']*)\1/g;

/**
 * CSS as a browser tokenizes it: an escape (`\72`, `\r`) is the character it stands for, so
 * `u\72l(` is `url(` (the rules below match the unescaped text).
 */
function cssUnescaped(block: string): string {
  if (!block.includes('\\')) return block;
  return block.replace(
    /\\([0-9a-fA-F]{1,6})[ \t\n\f\r]?|\\([^\n])/g,
    (_whole, hex?: string, char?: string) =>
      hex === undefined
        ? (char ?? '')
        : String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff) || 0xfffd),
  );
}

/** Every URL a CSS block loads (unescaped first): url(), @import (`imported`), image-set()'s strings. */
function cssUrls(block: string): { readonly value: string; readonly imported: boolean }[] {
  const text = cssUnescaped(block);
  return [
    ...matches(CSS_URL, text).map((match) => ({
      value: (match[2] ?? match[4] ?? '').trim(),
      imported: match[4] !== undefined,
    })),
    ...matches(IMAGE_SET, text).flatMap((set) =>
      matches(CSS_STRING, set[1] ?? '').map((string) => ({
        value: (string[2] ?? '').trim(),
        imported: false,
      })),
    ),
  ];
}
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Every match of a global `pattern` in `text` (exec from the start: no per-call copy of the pattern, as matchAll makes). */
function matches(pattern: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) found.push(match);
  return found;
}

// What a browser reads, not the bytes: an attribute's value is decoded from its character
// references (`&#104;ttps:`, `jav&#x61;script&colon;`) before a rule looks at it, and a URL loses its
// tabs and line breaks as a browser's URL parser drops them. Credentials are looked for in what a
// reader decodes (contract's credentialShapedValues: character references and percent-encoding,
// layered).
// Each decoding is skipped where it can change nothing (no `&`, no tab or line break: an indexOf
// or a test, no copy), as most of a page's attributes are plain (docs/benchmarks.md Run 11).
const QUOTED = /^["']|["']$/g;
const unquote = (value: string): string => {
  const bare =
    value.startsWith('"') || value.startsWith("'") || value.endsWith('"') || value.endsWith("'")
      ? value.replace(QUOTED, '')
      : value;
  return (bare.includes('&') ? decodeCharacterReferences(bare) : bare).trim();
};
const URL_DROPPED = /[\t\n\r]/;
const URL_DROPPED_ALL = /[\t\n\r]/g;
const urlOf = (value: string): string =>
  URL_DROPPED.test(value) ? value.replace(URL_DROPPED_ALL, '') : value;

/** A page's text from its bytes: ASCII (most pages) copied as Latin-1, which is the same text and cheaper than UTF-8. */
const pageText = (bytes: Buffer): string =>
  isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');

/** Credential-shaped values of the text a reader gets: a page's (decoded by the detector), a JSON file's parsed strings too. */
function credentialCount(path: string, text: string): number {
  const found = credentialShapedValues(text).length;
  if (!path.endsWith('.json') || !text.includes('\\u')) return found;
  try {
    return Math.max(found, credentialShapedValues(JSON.stringify(JSON.parse(text) as unknown)).length);
  } catch {
    return found;
  }
}

/** The page's own scripts, remote resources, local links and credential-shaped values. */
export function checkContent(
  path: string,
  bytes: Buffer,
  all: ReadonlySet<string>,
  scripts: ReadonlySet<string>,
): Issue[] {
  const text = pageText(bytes);
  const issues: Issue[] = [];
  const credentials = credentialCount(path, text);
  if (credentials > 0)
    issues.push(
      issue(
        'site_credential',
        path,
        `${path} holds ${credentials} credential-shaped value(s) (not shown)`,
        'no API key, token, AWS key or private key',
        `${credentials} credential-shaped value(s)`,
      ),
    );
  if (!path.endsWith('.html')) return issues;
  const csp = unquote(CSP_META.exec(text)?.[1] ?? '');
  // The page without its scripts' bodies (each `<script>` kept as a bare tag), built from the same
  // matches: handlers, URLs and styles are looked for in the rest.
  let markup = '';
  let done = 0;
  for (const match of matches(SCRIPT, text)) {
    markup += `${text.slice(done, match.index)}<script>`;
    done = match.index + match[0].length;
    const attributes = match[1] ?? '';
    if (JSON_TYPE.test(attributes) && !HAS_SRC.test(attributes)) continue;
    const hash = createHash('sha256')
      .update(match[2] ?? '')
      .digest('base64');
    if (HAS_SRC.test(attributes) || !scripts.has(hash) || !csp.includes(`'sha256-${hash}'`))
      issues.push(
        issue(
          'site_script_foreign',
          path,
          `${path} has a script that is not one of ours`,
          "only the report's inline script, by its sha256 in the page's CSP",
          HAS_SRC.test(attributes) ? 'a script with src' : `an inline script sha256-${hash}`,
        ),
      );
  }
  markup = done === 0 ? text : markup + text.slice(done);
  // Outside scripts and JSON data, inside tags only (text is escaped: it holds no tag): handlers
  // and javascript: URLs are scripts too; src/href/… name resources; style holds CSS. Only a tag
  // with an `=` has attributes (a handler, a link, a style); most tags have none, and are not kept.
  const attributed = attributedTags(markup);
  if (
    attributed.some((tag) => HANDLER.test(tag)) ||
    // A javascript: URL has a `:`, raw or by a reference (`&colon;`, `&#58;`).
    attributed.some((tag) =>
      tag.includes('&')
        ? JAVASCRIPT_URL.test(urlOf(decodeCharacterReferences(tag)))
        : tag.includes(':') && JAVASCRIPT_URL.test(urlOf(tag)),
    )
  )
    issues.push(
      issue(
        'site_script_foreign',
        path,
        `${path} has an event handler attribute or a javascript: URL`,
        'no inline handler, no javascript: URL',
        'one or more',
      ),
    );
  const directory = posix.dirname(path);
  /** One URL a page names: remote (or a script, reported above) or a file of the site. */
  const checkUrl = (raw: string): void => {
    const value = urlOf(raw);
    if (value === '' || value.startsWith('#')) return;
    if (REMOTE.test(value)) {
      // A data: image stays in the page; a data: document (text/html, SVG, XML, a script) is a page
      // or a script of its own, which publish never writes (srcdoc's markup is read below; this one
      // is encoded) — a foreign script as far as this gate can tell. javascript: is reported above.
      if (/^data:/i.test(value) && !DATA_IMAGE.test(value)) {
        issues.push(
          issue(
            'site_script_foreign',
            path,
            `${path} embeds a data: document (${value.slice(0, 40)}…), which may hold a script`,
            'no data: URL but an image (data:image/png, jpeg, gif, webp, avif)',
            value.slice(0, 200),
          ),
        );
        return;
      }
      if (/^(?:data|mailto|javascript):/i.test(value)) return;
      issues.push(
        issue(
          'site_remote_resource',
          path,
          `${path} names a resource outside the site: ${value.slice(0, 80)}`,
          'local, relative links only (the site works offline)',
          value.slice(0, 200),
        ),
      );
      return;
    }
    let target: string;
    try {
      target = posix.normalize(posix.join(directory, decodeURIComponent(value.replace(/[?#].*$/, ''))));
    } catch {
      target = '..';
    }
    if (target.startsWith('..') || !all.has(target))
      issues.push(
        issue(
          'site_link_broken',
          path,
          `${path} links to ${value.slice(0, 80)}, which is not in the site`,
          'a file of the site',
          value.slice(0, 200),
        ),
      );
  };
  for (const tag of attributed) {
    const attributes = attributesOf(tag);
    for (const [name, raw] of attributes) {
      if (!URL_ATTRIBUTES.has(name)) continue;
      const value = unquote(raw);
      // srcset: a comma-separated list of candidates, each a URL and a size.
      if (name === 'srcset')
        for (const candidate of value.split(',')) checkUrl(candidate.trim().split(/\s+/)[0] ?? '');
      else checkUrl(value);
    }
    // <meta http-equiv="refresh" content="0; url=…"> navigates: its URL is a resource too.
    if (
      /^<meta\b/i.test(tag) &&
      attributes.some(([name, raw]) => name === 'http-equiv' && /^refresh$/i.test(unquote(raw)))
    ) {
      const content = unquote(attributes.find(([name]) => name === 'content')?.[1] ?? '');
      const url = /url\s*=\s*(.*)$/i.exec(content)?.[1];
      if (url !== undefined) checkUrl(url.replace(/^["']|["']$/g, ''));
    }
    // srcdoc is a page inside the page: its markup, decoded, is held to the same rules (its credentials
    // are counted above, in the decoded text).
    for (const [name, raw] of attributes)
      if (name === 'srcdoc')
        issues.push(
          ...checkContent(path, Buffer.from(unquote(raw)), all, scripts).filter(
            (found) => found.code !== 'site_credential',
          ),
        );
  }
  const css = [
    ...matches(STYLE_ELEMENT, markup).map((match) => match[1] ?? ''),
    ...attributed.flatMap((tag) =>
      STYLE_NAME.test(tag)
        ? matches(STYLE_ATTRIBUTE, tag).map((match) => decodeCharacterReferences(unquote(match[1] ?? '')))
        : [],
    ),
  ];
  for (const block of css)
    for (const { value, imported } of cssUrls(block)) {
      if (value === '' || /^data:/i.test(value) || value.startsWith('#')) continue;
      if (REMOTE.test(value) || imported)
        issues.push(
          issue(
            'site_remote_resource',
            path,
            `${path} loads ${value.slice(0, 80)} from CSS`,
            'no CSS url(), image-set() or @import outside the page',
            value.slice(0, 200),
          ),
        );
    }
  return issues;
}
