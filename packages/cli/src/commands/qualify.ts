// `evals qualify`: qualify one runner release directory (packed @paperclipai/paperclip-runner
// tarball, paperclip-runnerd, SHA256SUMS) with the app's qualify workflow and print the
// evals-qualification/v1 record — a table of every check, or the record as JSON — which the workflow
// also writes to --out (atomically for a file, in place for a device or FIFO; a directory, socket,
// missing folder or a file inside the release directory is refused before any work).
// On a terminal (stderr a TTY, not --json) it shows its progress as it goes: a line per check as it
// is decided, under a progress line naming the check running (print.ts draws it); nothing extra
// elsewhere. When stdout is that terminal too, the table after leaves out the check lines already
// shown (each check once on the screen): it keeps the verdict, the issues of the failed checks, the
// receipt and the counts; stdout piped or to a file still gets the whole table. Stopped by Ctrl-C or SIGTERM, it says so once its children are killed and its work
// directory removed (node's child cleanup), then exits 130 / 143.
// Outcome: ok (qualified) · refused (every reason listed); a failure is usage (bad flags, no release dir).
import { qualify } from '@paperclip-evals/app/qualify';
import { noticeOnStop } from '@paperclip-evals/node';

import type { QualifyRequest } from '@paperclip-evals/app/qualify';
import type { QualificationRecord } from '@paperclip-evals/qualification';

import { show } from '../exit-codes.js';
import { clearProgress, drawProgress, isTerminal, printJson, printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

export interface QualifyOptions {
  readonly releaseDir: string;
  /** Where to write the record; a file must be outside the release directory. */
  readonly out?: string;
  readonly json: boolean;
}

type CheckEvent = Parameters<NonNullable<QualifyRequest['onCheck']>>[0];

/** The status word of a decided check, as the table writes it. */
const statusWord = (status: 'pass' | 'fail' | 'skipped'): string =>
  status === 'pass' ? 'pass' : status === 'fail' ? 'FAIL' : 'skip';

/**
 * The terminal's view of a qualification as it runs: a line per decided check (on stderr, above a
 * progress line naming the check running, redrawn every second with the time so far).
 */
function terminalProgress(): { onCheck: (event: CheckEvent) => void; stop: () => void } {
  const started = performance.now();
  const seconds = (): number => Math.round((performance.now() - started) / 1000);
  let running: Extract<CheckEvent, { kind: 'start' }> | null = null;
  const draw = (): void => {
    if (running !== null)
      drawProgress({
        label: 'qualifying',
        parts: [`[${running.index}/${running.total}] ${running.id}`, `${seconds()}s`],
      });
  };
  const timer = setInterval(draw, 1000).unref();
  return {
    onCheck: (event) => {
      if (event.kind === 'start') {
        running = event;
        draw();
        return;
      }
      running = null;
      clearProgress();
      printLines('stderr', [`  ${statusWord(event.status)}  ${event.id}  ${event.detail}`]);
    },
    stop: () => {
      clearInterval(timer);
      clearProgress();
    },
  };
}

export async function runQualify(options: QualifyOptions): Promise<Outcome> {
  const progress = isTerminal('stderr') && !options.json ? terminalProgress() : undefined;
  const releaseNotice = noticeOnStop((signal) => {
    progress?.stop();
    printLines('stderr', [
      `evals: interrupted (${signal}): qualification of ${options.releaseDir} stopped; its child processes were killed and its work directory removed (cleaned up); no record was written`,
    ]);
  });
  let record: QualificationRecord;
  let written: Awaited<ReturnType<typeof qualify>>['written'];
  try {
    ({ record, written } = await qualify({
      releaseDir: options.releaseDir,
      ...(options.out === undefined ? {} : { out: options.out }),
      ...(progress === undefined ? {} : { onCheck: progress.onCheck }),
    }));
  } finally {
    progress?.stop();
    releaseNotice();
  }
  const outcome = record.qualified ? 'ok' : 'refused';
  if (written !== undefined) {
    // Written to stdout itself (--out - or /dev/stdout), the record is stdout's whole content: the
    // table goes to stderr, and --json prints nothing more.
    if (written.toStdout) {
      if (!options.json) printLines('stderr', formatRecord(record));
      return outcome;
    }
    printLines('stderr', [`evals: qualification record written to ${written.path}`]);
  }
  if (options.json) printJson(record);
  else printLines('stdout', formatRecord(record, progress !== undefined && isTerminal('stdout')));
  return outcome;
}

const shown = (value: unknown): string => (value === undefined ? '(not stated)' : show(value));
/**
 * The record as lines (package names, tarball entries and issues come from the release: printLines
 * renders them). `checksShown`: each check's line is on the screen already (the live lines above);
 * only a check with issues is named again, with them.
 */
function formatRecord(record: QualificationRecord, checksShown = false): string[] {
  const failed = record.checks.filter((check) => check.status === 'fail').length;
  const skipped = record.checks.filter((check) => check.status === 'skipped').length;
  const passed = record.checks.length - failed - skipped;
  const subject =
    record.package.name === null
      ? (record.package.tarball ?? '(no tarball)')
      : `${record.package.name} ${record.package.version ?? '(no version)'}`;
  const width = Math.max(...record.checks.map((check) => check.id.length));
  const lines = [`${record.qualified ? 'qualified' : 'refused'}  ${subject}  (${record.releaseDir})`];
  if (checksShown)
    lines.push(`  (each check's line is above, as it was decided; the issues of the failed ones follow)`);
  for (const check of record.checks) {
    if (checksShown && (check.issues ?? []).length === 0) continue;
    lines.push(
      checksShown
        ? `  ${statusWord(check.status)}  ${check.id}`
        : `  ${statusWord(check.status)}  ${check.id.padEnd(width)}  ${check.detail}`,
    );
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
  if (record.runnerd.sha256 !== null) {
    // The digest is of the bytes read here; it is the release's runnerd only when runnerd-resolve
    // verified it (by SHA256SUMS): never shown as a digest to pin otherwise.
    const resolve = record.checks.find((check) => check.id === 'runnerd-resolve');
    const verified =
      resolve?.status === 'pass'
        ? ''
        : `  (not verified: runnerd-resolve ${resolve === undefined ? 'not run' : resolve.status === 'skipped' ? 'skipped' : 'failed'}; do not pin it)`;
    lines.push(`  runnerd  ${record.runnerd.file ?? '?'}  ${record.runnerd.sha256}${verified}`);
  }
  lines.push(`${record.checks.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (!record.qualified && failed === 0) {
    const unproven = record.checks.filter((check) => check.status === 'skipped').map((check) => check.id);
    lines.push(
      `refused: no check failed, but ${unproven.join(', ')} skipped (see "skip" above: what it needs): what a skipped check would prove is unproven, so the release is not qualified`,
    );
  }
  return lines;
}
