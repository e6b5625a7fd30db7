// `evals ingest --artifact-root` never leaves the root, end to end: an attempt whose transcript is
// reached through a symlinked directory, a symlinked file, a `..` chain through a link or a link
// to a link is refused (exit 1, the coded reason, nothing written), and the digest of the file
// outside the root — which the attempt claims wrongly, so a read of it would be reported as a
// mismatch showing it — is never printed, in text or JSON. A reference refused unread (those, a FIFO,
// a directory, a path the file system will not open) is counted as refused, by its reason, never as
// mismatched: a refusal compared nothing. The first ingest runs the real binary, the others its
// main() in-process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const SECRET = 'a file outside the artifact root\n';
const SECRET_DIGEST = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;

let dir: string;

type Bundle = Record<string, unknown> & { transcript: { uri: string; sha256: string; byteSize: number } };

/** An attempt whose transcript is `uri`, claiming a digest that is not the outside file's. */
function attemptAt(name: string, uri: string): string {
  const bundle = syntheticAttempt({ attemptId: `hostile_${name}` }) as Bundle;
  bundle.transcript.uri = uri;
  bundle.transcript.sha256 = `sha256:${'0'.repeat(64)}`;
  bundle.transcript.byteSize = Buffer.byteLength(SECRET);
  const file = join(dir, 'bundles', `${name}.json`);
  writeFileSync(file, JSON.stringify(bundle));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-artifact-root-e2e-'));
  mkdirSync(join(dir, 'bundles'));
  mkdirSync(join(dir, 'outside', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'outside', 'secret.txt'), SECRET);
  const root = join(dir, 'artifacts');
  mkdirSync(root);
  symlinkSync('../outside', join(root, 'dir-link'));
  symlinkSync('../outside/secret.txt', join(root, 'file-link'));
  symlinkSync('../outside/deep', join(root, 'dot-dot'));
  symlinkSync('link-2', join(root, 'link-1'));
  symlinkSync('../outside', join(root, 'link-2'));
  expect(spawnSync('mkfifo', [join(root, 'pipe')]).status).toBe(0);
  mkdirSync(join(root, 'a-directory'));
  writeFileSync(join(root, 'wrong-bytes.txt'), 'not what the bundle states\n');
  writeFileSync(join(root, 'too-large.txt'), `${SECRET}${'x'.repeat(100_000)}`);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const evals = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, {
      cwd: dir,
      encoding: 'utf8',
      input: '',
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);

const INGEST_REPORT = 'https://paperclip-evals.dev/schemas/ingest-report/v1.json';

interface IngestJson {
  artifacts: { mismatched: number; refused: number; refusedReasons: Record<string, number> };
}

/** Ingests one bundle, in text and with --json (exit 1, nothing written), and returns both runs. */
async function ingestRefused(slug: string, bundle: string): Promise<{ text: string; json: IngestJson }> {
  const outputs: string[] = [];
  for (const json of [false, true]) {
    const store = join(dir, `store-${slug}-${String(json)}.sqlite`); // its name is printed: no code in it
    const run = await evals([
      'ingest',
      bundle,
      '--artifact-root',
      'artifacts',
      '--store',
      `sqlite:${store}`,
      ...(json ? ['--json'] : []),
    ]);
    expect(run.status, run.stderr).toBe(1);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET_DIGEST);
    expect(existsSync(store)).toBe(false); // nothing was written
    outputs.push(run.stdout);
  }
  const json = JSON.parse(outputs[1] ?? '') as IngestJson;
  expect(schemaErrors(INGEST_REPORT, json)).toEqual([]);
  return { text: outputs[0] ?? '', json };
}

describe('evals ingest --artifact-root refuses what leads outside the root', () => {
  it.each([
    [
      'a symlinked directory inside the root pointing outside',
      'artifact://native/dir-link/secret.txt',
      'artifact_symlink_refused',
    ],
    ['a symlinked file', 'artifact://native/file-link', 'artifact_symlink_refused'],
    [
      'a `..` chain through a link (dot-dot/.. is outside/)',
      'artifact://native/dot-dot/../secret.txt',
      'artifact_uri_outside_root',
    ],
    [
      'a `..` chain out of the root',
      'artifact://native/x/../../outside/secret.txt',
      'artifact_uri_outside_root',
    ],
    ['a link to a link', 'artifact://native/link-1/secret.txt', 'artifact_symlink_refused'],
    ['a FIFO', 'artifact://native/pipe', 'artifact_not_a_file'],
    ['a directory', 'artifact://native/a-directory', 'artifact_not_a_file'],
    [
      'a path the file system will not open (a name over 255 bytes: ENAMETOOLONG)',
      `artifact://native/${'n'.repeat(300)}`,
      'artifact_unreadable',
    ],
  ])('%s', async (name, uri, code) => {
    const slug = name.replace(/\W+/g, '-').slice(0, 60);
    const bundle = attemptAt(slug, uri);
    const { text, json } = await ingestRefused(slug, bundle);
    expect(text).toContain(code);
    const reason = {
      artifact_symlink_refused: 'symlink',
      artifact_uri_outside_root: 'outside_root',
      artifact_not_a_file: 'not_a_file',
      artifact_unreadable: 'unreadable',
    }[code];
    // Refused, by its reason: never counted as a mismatch (nothing was compared).
    expect(json.artifacts).toMatchObject({
      mismatched: 0,
      refused: 1,
      refusedReasons: { outside_root: 0, symlink: 0, not_a_file: 0, unreadable: 0, [reason ?? '']: 1 },
    });
    expect(text).toContain(
      `artifacts of the valid attempts: 0 verified, 0 unverified, 0 mismatched, 1 refused (1 ${reason ?? ''})`,
    );
  });
});

describe('bytes that differ are a mismatch, not a refusal', () => {
  it.each([
    ['other bytes', 'artifact://native/wrong-bytes.txt'],
    ['a file larger than the bundle states', 'artifact://native/too-large.txt'],
  ])('%s: mismatched 1, refused 0', async (name, uri) => {
    const slug = name.replace(/\W+/g, '-');
    const { text, json } = await ingestRefused(slug, attemptAt(slug, uri));
    expect(text).toContain('artifact_digest_mismatch');
    expect(json.artifacts).toMatchObject({ mismatched: 1, refused: 0 });
    expect(text).toContain('0 unverified, 1 mismatched, 0 refused');
  });
});
