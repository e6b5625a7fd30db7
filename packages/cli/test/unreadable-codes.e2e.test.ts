// Every input `evals validate --json` and `evals ingest --json` cannot read carries its rule's code
// beside the words (input_missing, input_not_regular_file, input_symlink_in_directory,
// input_empty_directory, input_no_match, input_name_not_utf8), the same in both commands, and both outputs hold to
// their schemas. In-process (the program the binary runs): the inputs are refused before any open.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { evalsInProcess } from './support/evals-in-process.ts';

const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-unreadable-codes-'));
  await mkdir(join(dir, 'walked'));
  execFileSync('mkfifo', [join(dir, 'walked', 'fifo.json')]);
  await writeFile(join(dir, 'target.json'), '{}');
  await symlink(join(dir, 'target.json'), join(dir, 'walked', 'link.json'));
  await mkdir(join(dir, 'empty'));
  // A name that is not UTF-8 (Latin-1 "café.json"): JavaScript sees it with U+FFFD.
  await writeFile(
    Buffer.concat([Buffer.from(join(dir, 'walked', 'caf')), Buffer.from([0xe9]), Buffer.from('.json')]),
    '{}',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const INPUTS = (): string[] => [
  join(dir, 'walked'),
  join(dir, 'nosuch.json'),
  join(dir, 'empty'),
  join(dir, 'nothing-*.json'),
];
const EXPECTED = (): { input: string; code: string }[] => [
  { input: join(dir, 'walked', 'caf\ufffd.json'), code: 'input_name_not_utf8' },
  { input: join(dir, 'walked', 'fifo.json'), code: 'input_not_regular_file' },
  { input: join(dir, 'walked', 'link.json'), code: 'input_symlink_in_directory' },
  { input: join(dir, 'nosuch.json'), code: 'input_missing' },
  { input: join(dir, 'empty'), code: 'input_empty_directory' },
  { input: join(dir, 'nothing-*.json'), code: 'input_no_match' },
];

describe('an input that cannot be read is named with its code', () => {
  it('evals validate --json', async () => {
    const run = await evalsInProcess(['validate', '--json', ...INPUTS()], dir);
    expect(run.status, run.stderr).toBe(2);
    const report = JSON.parse(run.stdout) as { files: { input: string; status: string; code?: string }[] };
    expect(schemaErrors(SCHEMA('validate-report'), report)).toEqual([]);
    expect(report.files.map(({ input, code }) => ({ input, code }))).toEqual(EXPECTED());
    expect(report.files.every((file) => file.status === 'unreadable')).toBe(true);
  });

  it('evals ingest --json, the same codes', async () => {
    const store = `sqlite:${join(dir, 'book.sqlite')}`;
    const run = await evalsInProcess(['ingest', '--json', '--store', store, ...INPUTS()], dir);
    expect(run.status, run.stderr).toBe(2);
    const report = JSON.parse(run.stdout) as { unreadable: { input: string; code: string }[] };
    expect(schemaErrors(SCHEMA('ingest-report'), report)).toEqual([]);
    expect(report.unreadable.map(({ input, code }) => ({ input, code }))).toEqual(EXPECTED());
  });

  it('the schemas refuse an unreadable entry without its code', async () => {
    const run = await evalsInProcess(['validate', '--json', join(dir, 'nosuch.json')], dir);
    const report = JSON.parse(run.stdout) as { files: Record<string, unknown>[] };
    delete report.files[0]?.code;
    expect(schemaErrors(SCHEMA('validate-report'), report)).not.toEqual([]);
  });
});
