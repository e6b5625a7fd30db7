// `evals validate --artifact-root DIR` verifies a bundle's referenced files as `evals ingest
// --artifact-root` does — the same check (evalbook's verifyReferences), so the two agree on every
// input: the right root verifies each file (`references` in --json, said on the valid line), bytes
// that differ are invalid (artifact_digest_mismatch, exit 1), a link or a path out of the root is
// refused with ingest's code, a root that holds none of the files is the coded warning
// artifact_root_holds_none, and a root that is not a directory is a usage error (exit 2) before any
// input is read. Without the flag a bare bundle has no root: nothing is said of its files.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

type Ref = { uri: string; sha256: string; byteSize: number };
type Bundle = Record<string, unknown> & { transcript: Ref; artifacts: Ref[] };

const VALIDATE_REPORT = 'https://paperclip-evals.dev/schemas/validate-report/v1.json';
const NATIVE = 'artifact://native/';
let dir: string;
let referenced = 0;

/** A bundle at runs/<name>.json whose transcript is `uri` (its digest that of `bytes`). */
function bundleWithTranscript(name: string, uri: string, bytes: string): void {
  const bundle = syntheticAttempt({ attemptId: name }) as Bundle;
  bundle.transcript.uri = uri;
  bundle.transcript.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  bundle.transcript.byteSize = Buffer.byteLength(bytes);
  mkdirSync(join(dir, 'odd'), { recursive: true });
  writeFileSync(join(dir, 'odd', `${name}.json`), JSON.stringify(bundle));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-validate-artifact-root-'));
  mkdirSync(join(dir, 'runs'));
  const bundle = syntheticAttempt({ attemptId: 'a0' }) as Bundle;
  for (const ref of [bundle.transcript, ...bundle.artifacts]) {
    const bytes = `${ref.uri}\n`;
    const file = join(dir, 'out', ref.uri.slice(NATIVE.length));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, bytes);
    ref.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    ref.byteSize = Buffer.byteLength(bytes);
  }
  referenced = new Set([bundle.transcript, ...bundle.artifacts].map((ref) => ref.uri)).size;
  writeFileSync(join(dir, 'runs', 'a0.json'), JSON.stringify(bundle));
  mkdirSync(join(dir, 'out', 'deeper'));
  writeFileSync(join(dir, 'out', 'wrong-bytes.txt'), 'not what the bundle states\n');
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'outside', 'secret.txt'), 'outside\n');
  symlinkSync('../outside/secret.txt', join(dir, 'out', 'file-link'));
  bundleWithTranscript('wrong_bytes', `${NATIVE}wrong-bytes.txt`, 'what the bundle states\n');
  bundleWithTranscript('file_link', `${NATIVE}file-link`, 'outside\n');
  bundleWithTranscript('dot_dot', `${NATIVE}x/../../outside/secret.txt`, 'outside\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface ValidateJson {
  summary: { valid: number; invalid: number; unreadable: number };
  files: {
    status: string;
    references?: { root: string; verified: number; unverified: number };
    issues?: { code: string }[];
  }[];
}

async function validateJson(
  ...args: string[]
): Promise<{ status: number; json: ValidateJson; stderr: string }> {
  const run = await evalsInProcess(['validate', ...args, '--json'], dir);
  const json = JSON.parse(run.stdout) as ValidateJson;
  expect(schemaErrors(VALIDATE_REPORT, json)).toEqual([]);
  return { status: run.status, json, stderr: run.stderr };
}

describe('evals validate --artifact-root', () => {
  it('the right root: every referenced file verified, in JSON and on the valid line', async () => {
    const { status, json } = await validateJson('runs/a0.json', '--artifact-root', 'out');
    expect(status).toBe(0);
    expect(json.files[0]?.references).toEqual({ root: 'out', verified: referenced, unverified: 0 });
    const text = await evalsInProcess(['validate', 'runs/a0.json', '--artifact-root', 'out'], dir);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`; ${referenced} of ${referenced} referenced file(s) verified under out`);
  });

  it('without it a bare bundle has no root: nothing is said of its files', async () => {
    const { status, json } = await validateJson('runs/a0.json');
    expect(status).toBe(0);
    expect(json.files[0]?.references).toBeUndefined();
  });

  it('a root that holds none of the files: valid but unverified, and the wrong-folder warning', async () => {
    const { status, json, stderr } = await validateJson('runs/a0.json', '--artifact-root', 'out/deeper');
    expect(status).toBe(0);
    expect(json.files[0]?.references).toEqual({ root: 'out/deeper', verified: 0, unverified: referenced });
    expect(stderr).toContain(
      'evals validate: warning artifact_root_holds_none: --artifact-root out/deeper holds none of the',
    );
  });

  it.each([
    ['bytes that differ', 'wrong_bytes', 'artifact_digest_mismatch'],
    ['a symlinked file', 'file_link', 'artifact_symlink_refused'],
    ['a `..` chain out of the root', 'dot_dot', 'artifact_uri_outside_root'],
  ])('%s: invalid (exit 1) with the code ingest gives the same input', async (_name, file, code) => {
    const input = `odd/${file}.json`;
    const { status, json } = await validateJson(input, '--artifact-root', 'out');
    expect(status).toBe(1);
    expect(json.files[0]?.status).toBe('invalid');
    expect(json.files[0]?.issues?.map((issue) => issue.code)).toEqual([code]);
    const ingest = await evalsInProcess(
      ['ingest', input, '--artifact-root', 'out', '--store', `sqlite:${file}.sqlite`, '--json'],
      dir,
    );
    expect(ingest.status).toBe(1);
    const report = JSON.parse(ingest.stdout) as { invalid: { issues: { code: string }[] }[] };
    expect(report.invalid[0]?.issues.map((issue) => issue.code)).toEqual([code]);
  });

  it.each([
    ['no such directory', 'missing-folder'],
    ['not a directory', 'runs/a0.json'],
  ])('a root that is %s: a usage error (exit 2) before any input is read', async (what, root) => {
    const run = await evalsInProcess(['validate', 'runs/a0.json', '--artifact-root', root], dir);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`--artifact-root ${root}: ${what}`);
  });
});
