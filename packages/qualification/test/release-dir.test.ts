// SHA256SUMS parsed strictly, and the release directory verified against it: every malformed line,
// missing, unlisted, irregular or mismatched file is an issue naming the file; the layout names the
// tarball, the host's runnerd and the App's record, or says why it cannot.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Digest } from '@paperclip-evals/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  MAX_RELEASE_FILE_BYTES,
  RELEASE_ENTRY_KINDS,
  RELEASE_ENTRY_PHRASE,
  notRegularMessage,
  parseSha256Sums,
  readReleaseLayout,
  runnerdFileName,
  verifiedDigest,
  verifySha256Sums,
} from '../src/release-dir.ts';

const HEX = 'a'.repeat(64);

describe('parseSha256Sums', () => {
  it('reads sha256sum text mode, with or without a final newline', () => {
    const parsed = parseSha256Sums(`${HEX}  one.tgz\n${'b'.repeat(64)}  paperclip-runnerd-linux-x64`);
    expect(parsed.issues).toEqual([]);
    expect(parsed.entries).toEqual([
      { file: 'one.tgz', sha256: `sha256:${HEX}`, line: 1 },
      { file: 'paperclip-runnerd-linux-x64', sha256: `sha256:${'b'.repeat(64)}`, line: 2 },
    ]);
  });

  it.each([
    ['uppercase hex', `${'A'.repeat(64)}  x`],
    ['one space', `${HEX} x`],
    ['binary mode', `${HEX} *x`],
    ['a short digest', `${'a'.repeat(63)}  x`],
    ['a blank line', ''],
    ['a tab', `${HEX}\tx`],
    ['a sha256: prefix', `sha256:${HEX}  x`],
  ])('refuses %s as sums_line_malformed', (_label, line) => {
    const parsed = parseSha256Sums(`${HEX}  ok\n${line}\n`);
    expect(parsed.issues.map((issue) => issue.code)).toEqual(['sums_line_malformed']);
    expect(parsed.entries.map((entry) => entry.file)).toEqual(['ok']);
  });

  it.each([
    ['a directory', 'dir/x'],
    ['dot-dot', '..'],
    ['an escaped name', '\\x'],
    ['a CR from CRLF', 'x\r'],
    ['a trailing space', 'x '],
  ])('refuses %s as sums_file_name_invalid', (_label, name) => {
    expect(parseSha256Sums(`${HEX}  ${name}\n`).issues.map((issue) => issue.code)).toEqual([
      'sums_file_name_invalid',
    ]);
  });

  it('refuses a name listed twice, and SHA256SUMS listing itself', () => {
    expect(parseSha256Sums(`${HEX}  x\n${HEX}  x\n${HEX}  SHA256SUMS\n`).issues.map((i) => i.code)).toEqual([
      'sums_duplicate_entry',
      'sums_lists_itself',
    ]);
  });

  it('refuses an empty file', () => {
    expect(parseSha256Sums('').issues.map((i) => i.code)).toEqual(['sums_empty']);
  });
});

describe('the release directory', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'qualification-release-dir-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const makeDir = async (name: string, files: Record<string, string>): Promise<string> => {
    const dir = join(root, name);
    await mkdir(dir);
    for (const [file, content] of Object.entries(files)) await writeFile(join(dir, file), content);
    return dir;
  };
  const sumsOf = (files: Record<string, string>): string =>
    Object.entries(files)
      .map(([name, content]) => `${sha256Digest(content).slice('sha256:'.length)}  ${name}\n`)
      .join('');
  const RUNNERD = runnerdFileName();
  const GOOD = {
    'r.tgz': 'tarball',
    [RUNNERD]: 'runnerd',
    'paperclip-runner-consumer-conformance.json': '{}',
  };

  it('verifies a complete directory', async () => {
    const dir = await makeDir('complete', { ...GOOD, SHA256SUMS: sumsOf(GOOD) });
    const layout = await readReleaseLayout(dir);
    expect(layout).toMatchObject({ sums: 'SHA256SUMS', tarball: 'r.tgz', runnerd: RUNNERD, issues: [] });
    const verified = await verifySha256Sums(dir, layout);
    expect(verified.issues).toEqual([]);
    expect(verified.verifiedCount).toBe(3);
    expect(verified.computed['r.tgz']).toBe(sha256Digest('tarball'));
  });

  it('names every missing, unlisted, irregular and mismatched file at once', async () => {
    const dir = await makeDir('broken', {
      ...GOOD,
      'r.tgz': 'changed',
      SHA256SUMS: `${sumsOf(GOOD)}${sumsOf({ 'gone.txt': 'x' })}`,
      'extra.txt': 'x',
    });
    await mkdir(join(dir, 'subdir'));
    await symlink('r.tgz', join(dir, 'link.tgz.txt'));
    const layout = await readReleaseLayout(dir);
    const verified = await verifySha256Sums(dir, layout);
    expect(verified.issues.map((issue) => [issue.code, issue.file])).toEqual([
      ['digest_mismatch', 'r.tgz'],
      ['file_missing', 'gone.txt'],
      ['file_unlisted', 'extra.txt'],
      ['file_unlisted', 'link.tgz.txt'],
      ['file_unlisted', 'subdir'],
    ]);
  });

  it('refuses a release file over the cap by its size, never reading it (a sparse 8 GiB file)', async () => {
    const dir = await makeDir('huge', { ...GOOD, SHA256SUMS: sumsOf(GOOD) });
    await truncate(join(dir, 'r.tgz'), 8 * 1024 * 1024 * 1024); // sparse: costs no disk
    const layout = await readReleaseLayout(dir);
    const read = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
    const before = read();
    const verified = await verifySha256Sums(dir, layout);
    expect(read() - before).toBeLessThan(64 * 1024 * 1024);
    expect(verified.issues).toEqual([
      expect.objectContaining({
        code: 'file_too_large',
        file: 'r.tgz',
        expected: `at most ${MAX_RELEASE_FILE_BYTES} bytes`,
      }),
    ]);
    expect(verified.verified.has('r.tgz')).toBe(false);
    expect(verifiedDigest(verified, 'r.tgz')).toEqual({
      why: `r.tgz is over the ${MAX_RELEASE_FILE_BYTES}-byte limit of a release file, so it is unverified`,
    });
    expect(verified.verifiedCount).toBe(2);
  });

  it('names what the layout lacks: SHA256SUMS, a single tarball, this host runnerd, the App record', async () => {
    const dir = await makeDir('no-layout', {
      'a.tgz': '1',
      'b.tgz': '2',
      'paperclip-runnerd-plan9-mips': 'other host',
    });
    const layout = await readReleaseLayout(dir);
    expect(layout.issues.map((issue) => issue.code)).toEqual([
      'sums_missing',
      'tarball_ambiguous',
      'runnerd_missing',
      'app_record_missing',
    ]);
    expect(layout.issues.find((issue) => issue.code === 'runnerd_missing')?.received).toEqual([
      'paperclip-runnerd-plan9-mips',
    ]);
    expect((await verifySha256Sums(dir, layout)).issues.map((issue) => issue.code)).toEqual([
      'sums_unavailable',
    ]);
  });

  it('reads nothing of the App record: an App record that is not strict JSON is judged by app-record, once verified', async () => {
    const files = { ...GOOD, 'paperclip-runner-consumer-conformance.json': '{"a":1,"a":2}' };
    const dir = await makeDir('bad-app-record', { ...files, SHA256SUMS: sumsOf(files) });
    const layout = await readReleaseLayout(dir);
    expect(layout.issues).toEqual([]);
    expect(layout.appRecord).toBe('paperclip-runner-consumer-conformance.json');
  });

  it('resolves the runnerd of the platform asked for', async () => {
    const dir = await makeDir('other-platform', { 'paperclip-runnerd-darwin-arm64': 'x' });
    expect((await readReleaseLayout(dir, { platform: 'darwin', arch: 'arm64' })).runnerd).toBe(
      'paperclip-runnerd-darwin-arm64',
    );
  });
});

describe('how an entry that is not a regular file is worded', () => {
  // The review found "SHA256SUMS is a other": every kind has its own phrase, its article included.
  const VOWEL_SOUND = /^[aeiou]/i;

  it('every kind, whatever the subject: "is a"/"is an" as the phrase begins, never "a other"', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RELEASE_ENTRY_KINDS), fc.string(), (kind, subject) => {
        const message = notRegularMessage(subject, kind);
        const rest = message.slice(subject.length);
        const [, article = '', noun = ''] = /^ is (an?) (\S+)/.exec(rest) ?? [];
        expect(article).toBe(VOWEL_SOUND.test(noun) ? 'an' : 'a');
        expect(rest).toBe(` is ${RELEASE_ENTRY_PHRASE[kind]}, not a regular file`);
        expect(rest).not.toMatch(/\ba (other|[aeiou])/i);
      }),
    );
  });

  it('each kind has a phrase of its own (none says "other")', () => {
    const phrases = RELEASE_ENTRY_KINDS.map((kind) => RELEASE_ENTRY_PHRASE[kind]);
    expect(new Set(phrases).size).toBe(RELEASE_ENTRY_KINDS.length);
    for (const phrase of phrases) expect(phrase).toMatch(/^an? \S/);
    for (const phrase of phrases) expect(phrase).not.toMatch(/other/);
  });

  it('a socket where SHA256SUMS should be: "SHA256SUMS SHA256SUMS is a socket, not a regular file"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qualification-socket-'));
    const server = createServer();
    try {
      await new Promise<void>((resolve) => server.listen(join(dir, 'SHA256SUMS'), resolve));
      const layout = await readReleaseLayout(dir);
      const issue = layout.issues.find((candidate) => candidate.code === 'entry_not_regular_file');
      expect(issue).toMatchObject({
        message: 'SHA256SUMS SHA256SUMS is a socket, not a regular file',
        received: 'socket',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
