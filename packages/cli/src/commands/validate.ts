// `evals validate`: expand the inputs, parse each bundle with the contract parser, print a table or
// one JSON report, and return the exit code (0 all valid, 1 any invalid, 2 unreadable input).
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { styleText } from 'node:util';
import {
  isContractError,
  readNativeExecutionFile,
  readNativeExecutionStream,
} from '@paperclip-evals/contract';

import type { Issue, NativeExecutionInput } from '@paperclip-evals/contract';

import { EXIT, UsageError, isFileSystemError, show } from '../exit-codes.js';

export interface ValidateOptions {
  readonly inputs: readonly string[];
  readonly json: boolean;
  readonly maxBytes: number;
}

type FileReport =
  | {
      readonly input: string;
      readonly status: 'valid';
      readonly fileSha256: string;
      readonly byteSize: number;
      readonly attempt: Record<string, unknown>;
      readonly events: number;
    }
  | { readonly input: string; readonly status: 'invalid'; readonly issues: readonly Issue[] }
  | { readonly input: string; readonly status: 'unreadable'; readonly error: string };

const STDIN = '-';

export async function runValidate(options: ValidateOptions): Promise<number> {
  const targets = await expandInputs(options.inputs);
  const reports: FileReport[] = [];
  const progress = targets.length > 20 && process.stdout.isTTY && process.stderr.isTTY;
  for (const [index, target] of targets.entries()) {
    const report = await validateOne(target, options.maxBytes);
    reports.push(report);
    if (progress) process.stderr.write(`\rvalidating ${index + 1}/${targets.length}`);
    if (!options.json) process.stdout.write(formatReport(report));
  }
  if (progress) process.stderr.write('\r\x1b[K');

  const count = (status: FileReport['status']): number =>
    reports.filter((report) => report.status === status).length;
  const summary = { valid: count('valid'), invalid: count('invalid'), unreadable: count('unreadable') };
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ schema: 'paperclip-evals/validate-report/v1', summary, files: reports }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(
      `\n${summary.valid} valid, ${summary.invalid} invalid, ${summary.unreadable} unreadable\n`,
    );
  }
  if (summary.unreadable > 0) return EXIT.usage;
  return summary.invalid > 0 ? EXIT.invalid : EXIT.ok;
}

interface Target {
  readonly display: string;
  /** null: stdin. */
  readonly path: string | null;
  /** Why it cannot be read, found while expanding (a FIFO, a symlink inside a directory…). */
  readonly refused?: string;
}

/**
 * Files named, files found under directories, and stdin, in argument order. Directories are walked
 * in sorted order for `*.json` regular files; symlinks inside them are not followed (reported, so
 * nothing is skipped silently, and a link loop cannot repeat the walk). Anything that is not a
 * regular file (a FIFO would block the read forever) is refused before it is opened.
 */
async function expandInputs(inputs: readonly string[]): Promise<Target[]> {
  if (inputs.filter((input) => input === STDIN).length > 1)
    throw new UsageError('stdin (-) can be given only once');
  const targets: Target[] = [];
  for (const input of inputs) {
    if (input === STDIN) {
      targets.push({ display: '(stdin)', path: null });
      continue;
    }
    const path = resolve(input);
    const info = await stat(path).catch(() => null);
    if (info === null || info.isFile()) targets.push({ display: input, path });
    else if (info.isDirectory()) {
      const before = targets.length;
      await walkDirectory(path, input, targets);
      if (targets.length === before) throw new UsageError(`no *.json files under ${input}`);
    } else targets.push({ display: input, path, refused: 'not a regular file (a FIFO, socket or device)' });
  }
  return targets;
}

async function walkDirectory(dir: string, display: string, targets: Target[]): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const shown = join(display, entry.name);
    if (entry.isDirectory()) await walkDirectory(path, shown, targets);
    else if (!entry.name.endsWith('.json')) continue;
    else if (entry.isFile()) targets.push({ display: shown, path });
    else if (entry.isSymbolicLink())
      targets.push({
        display: shown,
        path,
        refused: 'a symlink inside a directory (not followed; name its target instead)',
      });
    else targets.push({ display: shown, path, refused: 'not a regular file (a FIFO, socket or device)' });
  }
}

async function validateOne(target: Target, maxBytes: number): Promise<FileReport> {
  if (target.refused !== undefined)
    return { input: target.display, status: 'unreadable', error: target.refused };
  let parsed: NativeExecutionInput;
  try {
    parsed =
      target.path === null
        ? await readNativeExecutionStream(process.stdin, { maxBytes })
        : await readNativeExecutionFile(target.path, { maxBytes });
  } catch (error) {
    if (isContractError(error)) return { input: target.display, status: 'invalid', issues: error.issues };
    if (isFileSystemError(error))
      return { input: target.display, status: 'unreadable', error: error.message };
    throw error; // not about the input: an internal failure (exit 70)
  }
  const { runId, caseId, configId, attemptId } = parsed.bundle.identity;
  return {
    input: target.display,
    status: 'valid',
    fileSha256: parsed.fileSha256,
    byteSize: parsed.byteSize,
    attempt: { runId, caseId, configId, attemptId },
    events: parsed.bundle.events.length,
  };
}

const paint = (style: 'green' | 'red' | 'yellow' | 'dim', text: string): string =>
  process.stdout.isTTY && process.env.NO_COLOR === undefined ? styleText(style, text) : text;

function formatReport(report: FileReport): string {
  switch (report.status) {
    case 'valid':
      return `${paint('green', 'valid  ')}  ${report.input}  ${paint('dim', `${report.events} events, ${report.fileSha256}`)}\n`;
    case 'unreadable':
      return `${paint('yellow', 'error  ')}  ${report.input}  ${report.error}\n`;
    case 'invalid': {
      const lines = report.issues.map(
        (issue) =>
          `    ${issue.code} at ${issue.path === '' || issue.path === undefined ? '(root)' : issue.path}: ${issue.message}\n` +
          `      expected: ${show(issue.expected)}\n      received: ${show(issue.received)}\n`,
      );
      const count = `${report.issues.length} issue${report.issues.length === 1 ? '' : 's'}`;
      return `${paint('red', 'invalid')}  ${report.input}  ${count}\n${lines.join('')}`;
    }
  }
}
