// The isolated consumer: a fresh directory outside the repository (under the work directory the
// caller made in os.tmpdir()) whose package.json depends on nothing but the extracted package, by
// `file:`. It is installed with `pnpm install --offline --ignore-workspace --ignore-scripts` and a
// small environment (the user's store, cache and config, never the workspace's), then the probe
// runs there with `node --frozen-intrinsics`, no shell and a fresh nonce on its stdin that its report
// must carry. Nothing up the directory tree may be a package or hold a
// node_modules folder, or Node's resolution would see more than the consumer.
import { randomBytes } from 'node:crypto';
import { access, lstat, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, parse } from 'node:path';
import { readJsonText } from '@paperclip-evals/contract';

import { tamperingIssues } from './judgements.js';
import { PROBE_FILE_NAME, PROBE_SOURCE, probeReportIssues } from './probe.js';
import { runBounded, runFailure } from '@paperclip-evals/node';

import { pnpmEnvironment, sanitizedPath } from './processes.js';

import type { ProbeInput, ProbeReport } from './probe.js';
import type { QualificationIssue } from './record.js';

export const DEFAULT_INSTALL_TIMEOUT_MS = 180_000;
export const DEFAULT_PROBE_TIMEOUT_MS = 120_000;
/** Most bytes of probe output accepted (the report carries the seeded fixture). */
export const MAX_PROBE_OUTPUT_BYTES = 32 * 1024 * 1024;
const MAX_INSTALL_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Files whose presence above the consumer would let resolution or pnpm see outside it. */
const ANCESTOR_INTRUDERS = ['node_modules', 'package.json', 'pnpm-workspace.yaml'];

export interface InstallConsumerOptions {
  /** Created here; its parent must exist and be private. */
  readonly consumerDir: string;
  readonly packageName: string;
  readonly packageDir: string;
  readonly pnpm: readonly string[];
  /** Where pnpm's variables are read from (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

export interface StepOutcome {
  readonly issues: readonly QualificationIssue[];
  readonly detail: string;
}

/** Every ancestor of `dir` holding a node_modules folder, a package.json or a pnpm workspace file. */
export async function consumerIsolationIssues(dir: string): Promise<QualificationIssue[]> {
  const issues: QualificationIssue[] = [];
  const { root } = parse(dir);
  for (let ancestor = dirname(dir); ; ancestor = dirname(ancestor)) {
    for (const name of ANCESTOR_INTRUDERS) {
      const path = join(ancestor, name);
      try {
        await lstat(path);
      } catch {
        continue;
      }
      issues.push({
        code: 'consumer_not_isolated',
        message: `${path} exists above the consumer, so it would see more than the installed package (set TMPDIR elsewhere)`,
        expected: `no ${name} in any ancestor of the consumer`,
        received: path,
      });
    }
    if (ancestor === root) break;
  }
  return issues;
}

/** Writes the consumer's package.json and installs it offline. */
export async function installConsumer(options: InstallConsumerOptions): Promise<StepOutcome> {
  await mkdir(options.consumerDir, { mode: 0o700 });
  const isolation = await consumerIsolationIssues(options.consumerDir);
  if (isolation.length > 0) return { issues: isolation, detail: 'the consumer directory is not isolated' };
  const manifest = {
    private: true,
    type: 'module',
    dependencies: { [options.packageName]: `file:${options.packageDir}` },
  };
  await writeFile(join(options.consumerDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const [command, ...prefix] = options.pnpm;
  if (command === undefined) {
    return {
      issues: [{ code: 'pnpm_command_empty', message: 'the pnpm command line is empty' }],
      detail: 'no pnpm',
    };
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS;
  const args = [
    ...prefix,
    'install',
    '--offline',
    '--ignore-workspace',
    '--ignore-scripts',
    '--reporter=append-only',
  ];
  const result = await runBounded({
    command,
    args,
    cwd: options.consumerDir,
    env: pnpmEnvironment(options.env),
    timeoutMs,
    maxStdoutBytes: MAX_INSTALL_OUTPUT_BYTES,
  });
  const failure = runFailure(result, timeoutMs);
  if (failure !== null) {
    const output = `${result.stdout.toString('utf8').slice(-4000)}\n${result.stderrTail}`.trim();
    return {
      issues: [
        {
          code: 'consumer_install_failed',
          message: `${[command, ...args].join(' ')} ${failure}`,
          expected: 'exit code 0',
          received: output.length > 4000 ? output.slice(-4000) : output,
        },
      ],
      detail: `pnpm install --offline ${failure}`,
    };
  }
  const installed = join(
    options.consumerDir,
    'node_modules',
    ...options.packageName.split('/'),
    'package.json',
  );
  try {
    await access(installed);
  } catch {
    return {
      issues: [
        {
          code: 'consumer_package_missing',
          message: `pnpm reported success but ${installed} does not exist`,
          received: 'missing',
        },
      ],
      detail: 'the package is not in the consumer after install',
    };
  }
  return { issues: [], detail: `installed offline into a fresh consumer with ${options.pnpm.join(' ')}` };
}

export interface ProbeOutcome extends StepOutcome {
  readonly report: ProbeReport | null;
}

/** Writes probe.mjs into the consumer, runs it with node (no shell), and reads its one report. */
export async function runConsumerProbe(options: {
  readonly consumerDir: string;
  readonly input: ProbeInput;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}): Promise<ProbeOutcome> {
  const probePath = join(options.consumerDir, PROBE_FILE_NAME);
  await writeFile(probePath, PROBE_SOURCE);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const source = options.env ?? process.env;
  const env: Record<string, string> = { PATH: sanitizedPath(source.PATH) };
  if (source.TMPDIR !== undefined && source.TMPDIR !== '') env.TMPDIR = source.TMPDIR;
  // Only the probe reads this (on stdin, before the package loads): a report without it is forged.
  const nonce = randomBytes(32).toString('hex');
  const result = await runBounded({
    command: process.execPath,
    args: ['--frozen-intrinsics', probePath, JSON.stringify(options.input)],
    stdin: `${nonce}\n`,
    cwd: options.consumerDir,
    env,
    timeoutMs,
    maxStdoutBytes: MAX_PROBE_OUTPUT_BYTES,
  });
  const failure = runFailure(result, timeoutMs);
  if (failure !== null) {
    return {
      report: null,
      issues: [
        {
          code: 'probe_failed',
          message: `the consumer probe ${failure}`,
          expected: 'exit code 0 and one JSON report',
          received: result.stderrTail.slice(-4000),
        },
      ],
      detail: `the probe ${failure}`,
    };
  }
  const parsed = readJsonText(result.stdout, { maxBytes: MAX_PROBE_OUTPUT_BYTES });
  if (!parsed.ok) {
    return {
      report: null,
      issues: parsed.issues.map((issue) => ({ ...issue, message: `probe output: ${issue.message}` })),
      detail: 'the probe did not print one strict JSON object',
    };
  }
  const shapeIssues = probeReportIssues(parsed.value);
  if (shapeIssues.length > 0)
    return { report: null, issues: shapeIssues, detail: 'the probe report has the wrong shape' };
  const report = parsed.value as ProbeReport;
  if (report.nonce !== nonce) {
    return {
      report: null,
      issues: [
        {
          code: 'probe_report_forged',
          message:
            "the report on the probe's stdout does not carry the nonce Evals gave the probe: something else (the package) wrote it",
          expected: "the nonce sent on the probe's stdin",
          received: 'another value',
        },
      ],
      detail: 'the probe report was not written by the probe',
    };
  }
  const tampering = tamperingIssues(report);
  const rejections: QualificationIssue[] = report.unhandledRejections.map((error) => ({
    code: 'package_unhandled_rejection',
    message: `the package left a promise rejection unhandled: ${error.name}: ${error.message}`,
    received: error,
  }));
  return {
    report,
    issues: [...tampering, ...rejections],
    detail:
      tampering.length > 0
        ? 'the package changed built-ins the probe observes with'
        : rejections.length > 0
          ? 'the package left promise rejections unhandled'
          : `probe report read (node ${report.node}, built-ins frozen, none replaced)`,
  };
}
