// `evals qualify`: qualify one runner release directory (packed @paperclipai/paperclip-runner
// tarball, paperclip-runnerd, SHA256SUMS) and print the evals-qualification/v1 record — a table of
// every check, or the record as JSON — optionally writing it to --out (atomically for a file, in place
// for a device or FIFO; a directory, socket or missing folder is refused before any work).
// Exit codes: 0 qualified · 1 refused (every reason listed) · 2 usage (bad flags, no release dir).
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { outputTarget } from '@paperclip-evals/contract';
import { qualifyRelease, writeQualificationRecord } from '@paperclip-evals/qualification';

import type { QualificationRecord } from '@paperclip-evals/qualification';

import { EXIT, UsageError, show } from '../exit-codes.js';
import { printJson, printLines } from '../print.js';

/** The exit codes of `evals qualify`. */
export const QUALIFY_EXIT = {
  qualified: EXIT.ok,
  /** At least one check failed or could not run; the record lists every reason. */
  refused: EXIT.invalid,
  usage: EXIT.usage,
} as const;

export interface QualifyOptions {
  readonly releaseDir: string;
  /** Where to write the record (contract's writeOutputFile); a file must be outside the release directory. */
  readonly out?: string;
  readonly json: boolean;
}

export async function runQualify(options: QualifyOptions): Promise<number> {
  const releaseDir = await existingDirectory(options.releaseDir);
  const out = options.out === undefined ? undefined : await outputPath(options.out, releaseDir);
  const record = await qualifyRelease({ releaseDir });
  if (out !== undefined) {
    await writeQualificationRecord(out.path, record);
    // Written to stdout itself (--out - or /dev/stdout), the record is stdout's whole content: the
    // table goes to stderr, and --json prints nothing more.
    if (out.toStdout) {
      if (!options.json) printLines('stderr', formatRecord(record));
      return record.qualified ? QUALIFY_EXIT.qualified : QUALIFY_EXIT.refused;
    }
    printLines('stderr', [`evals: qualification record written to ${out.path}`]);
  }
  if (options.json) printJson(record);
  else printLines('stdout', formatRecord(record));
  return record.qualified ? QUALIFY_EXIT.qualified : QUALIFY_EXIT.refused;
}

async function existingDirectory(path: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(resolve(path));
  } catch {
    throw new UsageError(`the release directory ${path} does not exist`);
  }
  if (!(await stat(real)).isDirectory())
    throw new UsageError(`the release directory ${path} is not a directory`);
  return real;
}

/**
 * Checks --out before the long work: contract's outputTarget refuses a directory, socket, missing
 * folder…; a file must not land in the release directory. Returns the user's path (errors name it)
 * and whether it is this process's stdout (`-`, /dev/stdout).
 */
async function outputPath(path: string, releaseDir: string): Promise<{ path: string; toStdout: boolean }> {
  const target = await outputTarget(path);
  if (target.kind === 'stdio') return { path, toStdout: target.fd === 1 };
  if (target.kind === 'new' || target.kind === 'file') {
    const absolute =
      target.kind === 'file'
        ? target.path
        : join(await realpath(dirname(target.path)), basename(target.path));
    const inside = relative(releaseDir, absolute);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw new UsageError(
        `--out ${path} is inside the release directory, where it would be a file SHA256SUMS does not list`,
      );
    }
  }
  return { path, toStdout: false };
}

const shown = (value: unknown): string => (value === undefined ? '(not stated)' : show(value));

/** The record as lines (package names, tarball entries and issues come from the release: printLines renders them). */
function formatRecord(record: QualificationRecord): string[] {
  const failed = record.checks.filter((check) => check.status === 'fail').length;
  const skipped = record.checks.filter((check) => check.status === 'skipped').length;
  const passed = record.checks.length - failed - skipped;
  const subject =
    record.package.name === null
      ? (record.package.tarball ?? '(no tarball)')
      : `${record.package.name} ${record.package.version ?? '(no version)'}`;
  const width = Math.max(...record.checks.map((check) => check.id.length));
  const lines = [`${record.qualified ? 'qualified' : 'refused'}  ${subject}  (${record.releaseDir})`];
  for (const check of record.checks) {
    const status = check.status === 'pass' ? 'pass' : check.status === 'fail' ? 'FAIL' : 'skip';
    lines.push(`  ${status}  ${check.id.padEnd(width)}  ${check.detail}`);
    for (const issue of check.issues ?? []) {
      const where = issue.file ?? issue.entry ?? issue.path ?? issue.component;
      lines.push(
        `${''.padEnd(width + 10)}${issue.code}${where === undefined || where === '' ? '' : ` [${where}]`}: ${issue.message}`,
      );
      if (issue.expected !== undefined || issue.received !== undefined) {
        lines.push(
          `${''.padEnd(width + 12)}expected ${shown(issue.expected)}, received ${shown(issue.received)}`,
        );
      }
    }
  }
  if (record.receipt !== null) {
    lines.push(
      `  receipt  ${record.receipt.consumer} ↔ ${record.receipt.packageVersion}: prp.v${record.receipt.negotiatedPrpVersion}, ${record.receipt.driverKind}@${record.receipt.driverVersion}`,
    );
  }
  if (record.runnerd.sha256 !== null)
    lines.push(`  runnerd  ${record.runnerd.file ?? '?'}  ${record.runnerd.sha256}`);
  lines.push(`${record.checks.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return lines;
}
