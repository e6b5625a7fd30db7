// Test support: a scratch folder per test file (release directories, and a parent for the
// qualification work directories so a test can prove they are all removed), and lookups into a
// record.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { QualificationCheck, QualificationCheckId, QualificationRecord } from '../../src/record.ts';

export interface Scratch {
  /** Release directories go here. */
  readonly releases: string;
  /** Pass as `tempDir`: qualifications make (and must remove) their work directories here. */
  readonly work: string;
  /** What is left in `work`. */
  leftovers(): Promise<string[]>;
  remove(): Promise<void>;
}

export async function createScratch(label: string): Promise<Scratch> {
  const root = await mkdtemp(join(tmpdir(), `qualification-${label}-`));
  const releases = join(root, 'releases');
  const work = await mkdtemp(join(tmpdir(), `qualification-${label}-work-`));
  return {
    releases,
    work,
    leftovers: () => readdir(work),
    remove: async () => {
      await rm(root, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    },
  };
}

export function check(record: QualificationRecord, id: QualificationCheckId): QualificationCheck {
  const found = record.checks.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no check ${id}`);
  return found;
}

/** Codes of a check's issues. */
export const codes = (record: QualificationRecord, id: QualificationCheckId): string[] =>
  (check(record, id).issues ?? []).map((issue) => issue.code);

/** Ids of the checks that did not pass. */
export const notPassing = (record: QualificationRecord): string[] =>
  record.checks
    .filter((candidate) => candidate.status !== 'pass')
    .map((candidate) => `${candidate.id}:${candidate.status}`);
