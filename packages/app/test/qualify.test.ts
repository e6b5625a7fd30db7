// The qualify workflow's own refusals, each before any qualification work: a release directory that
// is not one, and an output file inside it (SHA256SUMS would not list it). The qualification itself
// is the qualification package's (its tests, and the CLI's e2e tests, run real releases).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualify } from '../src/qualify.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-qualify-'));
  await mkdir(join(dir, 'release'));
  await writeFile(join(dir, 'file'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('qualify refuses, coded, before any work', () => {
  const rows: [string, () => Parameters<typeof qualify>[0], string, RegExp][] = [
    [
      'a release directory that does not exist',
      () => ({ releaseDir: join(dir, 'nowhere') }),
      'paperclip_app_input_invalid',
      /nowhere does not exist/,
    ],
    [
      'a release directory that is a file',
      () => ({ releaseDir: join(dir, 'file') }),
      'paperclip_app_input_invalid',
      /is not a directory/,
    ],
    [
      'an output file inside the release directory',
      () => ({ releaseDir: join(dir, 'release'), out: join(dir, 'release', 'record.json') }),
      'paperclip_app_request_invalid',
      /inside the release directory/,
    ],
    [
      'the release directory itself as the output',
      () => ({ releaseDir: join(dir, 'release'), out: join(dir, 'release') }),
      'paperclip_output_unwritable',
      /./,
    ],
    [
      'an output in a folder that does not exist',
      () => ({ releaseDir: join(dir, 'release'), out: join(dir, 'no', 'record.json') }),
      'paperclip_output_unwritable',
      /./,
    ],
  ];
  it.each(rows)('%s', async (_name, request, code, message) => {
    await expect(qualify(request())).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message) as unknown,
    });
  });
});
