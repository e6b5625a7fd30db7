// The CLI's face of node's one rule that an output never names an input (outputConflicts): each
// command that writes a file (run --out, merge --out, qualify --out) lists its outputs and inputs
// here before any work, and a conflict is a usage error (exit 2) naming both flags and the file.
// The report and the attempt page are checked in app's evalbook workflow, by the same rule.
import { sqliteStorePath } from '@paperclip-evals/evalbook';
import { outputConflictIssues, outputConflictText, outputConflicts } from '@paperclip-evals/node';

import { UsageError } from './exit-codes.js';

import type { NamedPath } from '@paperclip-evals/node';

/** A `--store` locator as an input: its SQLite file (with -wal, -shm, -journal), or nothing for PostgreSQL. */
export function storeInput(flag: string, locator: string | undefined): NamedPath[] {
  const file = locator === undefined ? null : sqliteStorePath(locator);
  return file === null ? [] : [{ flag, path: file, kind: 'sqlite' }];
}

/** A file flag as an input, when given. */
export function fileInput(flag: string, path: string | undefined): NamedPath[] {
  return path === undefined ? [] : [{ flag, path }];
}

/** Refuses (exit 2, one `output_conflicts_input` issue each) every output that names an input; nothing is written. */
export async function refuseOutputsOverInputs(
  outputs: readonly NamedPath[],
  inputs: readonly NamedPath[],
): Promise<void> {
  const conflicts = await outputConflicts(outputs, inputs);
  if (conflicts.length === 0) return;
  const [first, ...rest] = outputConflictIssues(conflicts);
  if (first === undefined) return;
  const flags = [...new Set(conflicts.map(({ output }) => output.flag))].join(' and ');
  throw new UsageError(
    `${conflicts.map(outputConflictText).join('; ')}: writing it would replace an input (output_conflicts_input; nothing was written). Name another file for ${flags}`,
    { issues: [first, ...rest] },
  );
}
