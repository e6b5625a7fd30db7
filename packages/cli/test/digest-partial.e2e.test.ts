// `evals digest` over readable and unreadable files, as sha256sum and validate do it: the digest of
// each readable one (in order), one coded line on stderr for each one that cannot be digested
// (missing, a folder, with --canonical not strict JSON), exit 2 — and with --json the same under
// `files` and `failed`, valid against schemas/evals/digest-v1.schema.json.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { evalsInProcess } from './support/evals-in-process.ts';

const DIGEST_SCHEMA_ID = (
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL('../../../schemas/evals/digest-v1.schema.json', import.meta.url)),
      'utf8',
    ),
  ) as { $id: string }
).$id;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-digest-partial-'));
  writeFileSync(join(dir, 'a.json'), '{"a":1}');
  writeFileSync(join(dir, 'b.json'), '{"b":2}');
  writeFileSync(join(dir, 'bad.json'), '{"b":');
  mkdirSync(join(dir, 'folder'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sha = (name: string): string =>
  `sha256:${createHash('sha256')
    .update(readFileSync(join(dir, name)))
    .digest('hex')}`;

describe('when some files cannot be digested', () => {
  it('prints the digest of each readable file, a coded line for each other one, and exits 2', async () => {
    const result = await evalsInProcess(['digest', 'a.json', 'missing.json', 'folder', 'b.json'], dir);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe(`${sha('a.json')}  a.json\n${sha('b.json')}  b.json\n`);
    expect(result.stderr).toMatch(/^evals digest: missing\.json: paperclip_cli_input_unreadable: .*ENOENT/m);
    expect(result.stderr).toMatch(/^evals digest: folder: paperclip_cli_input_unreadable: /m);
  });

  it('--json: the readable ones under files, the others under failed with their code (the schema holds)', async () => {
    const result = await evalsInProcess(
      ['digest', '--json', '--canonical', 'a.json', 'bad.json', 'missing.json'],
      dir,
    );
    expect(result.status).toBe(2);
    const report = JSON.parse(result.stdout) as {
      files: { file: string }[];
      failed: { file: string; code: string }[];
    };
    expect(report.files.map(({ file }) => file)).toEqual(['a.json']);
    expect(report.failed.map(({ file }) => file)).toEqual(['bad.json', 'missing.json']);
    expect(report.failed.every(({ code }) => /^paperclip_/.test(code))).toBe(true);
    expect(schemaErrors(DIGEST_SCHEMA_ID, report)).toEqual([]);
  });

  it('every file readable: exit 0, no failed member', async () => {
    const result = await evalsInProcess(['digest', '--json', 'a.json'], dir);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).not.toHaveProperty('failed');
  });
});
