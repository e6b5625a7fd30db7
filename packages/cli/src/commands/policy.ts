// `evals policy evaluate` and `evals policy replay`: flags in, one @paperclip-evals/policy call,
// results out. On the evaluate path stdout carries protocol frames only.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isContractError, readNativeExecutionFile } from '@paperclip-evals/contract';
import { handshake, isPolicyError, replayAttempts, runEvaluate } from '@paperclip-evals/policy';

import { EXIT, describeError, isFileSystemError } from '../exit-codes.js';

import type { NativeExecution } from '@paperclip-evals/contract';
import type { ReplayAttemptsResult, PolicyErrorCode } from '@paperclip-evals/policy';

const CLI_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Exit codes of `evals policy replay` (evaluate's come from the protocol: 0, 1, 2). */
export const REPLAY_EXIT = {
  ok: 0,
  rowErrors: 1,
  usage: EXIT.usage,
  binaryInvalid: 4,
  jobFailed: 5,
} as const;

const EXIT_FOR_POLICY_ERROR: Record<PolicyErrorCode, number> = {
  paperclip_policy_bundle_invalid: REPLAY_EXIT.usage,
  paperclip_policy_binary_invalid: REPLAY_EXIT.binaryInvalid,
  paperclip_policy_job_failed: REPLAY_EXIT.jobFailed,
};

export interface PolicyEvaluateOptions {
  readonly describe: boolean;
  readonly listen?: string;
}

export async function runPolicyEvaluate(options: PolicyEvaluateOptions): Promise<number> {
  if (options.listen !== undefined) {
    process.stderr.write(
      `evals policy evaluate: --listen ${options.listen} is reserved and not implemented; no socket is opened (use stdin/stdout)\n`,
    );
    return 2;
  }
  if (options.describe) {
    process.stdout.write(`${JSON.stringify(handshake(CLI_VERSION))}\n`);
    return 0;
  }
  return runEvaluate({
    input: process.stdin,
    output: process.stdout,
    diagnostics: (message) => process.stderr.write(`evals policy evaluate: ${message}\n`),
    clientVersion: CLI_VERSION,
  });
}

export interface PolicyReplayOptions {
  readonly attempts: readonly string[];
  readonly policyBinary: string;
  readonly sha256: string;
  readonly bundle: string;
  readonly policyArg: readonly string[];
  readonly processes: number;
  readonly initialState: 'zeroed' | 'unavailable';
  readonly replyTimeoutMs: number;
  readonly json: boolean;
}

export const POLICY_REPLAY_REPORT_V1 = 'paperclip-evals/policy-replay/v1';

export async function runPolicyReplay(options: PolicyReplayOptions): Promise<number> {
  let result: ReplayAttemptsResult;
  try {
    const bundle = await readFile(options.bundle, 'utf8');
    const attempts = await readAttempts(options.attempts);
    result = await replayAttempts({
      binaryPath: options.policyBinary,
      binarySha256: options.sha256,
      binaryArgs: options.policyArg,
      bundle,
      attempts,
      initialState: options.initialState,
      processes: options.processes,
      replyTimeoutMs: options.replyTimeoutMs,
    });
  } catch (error) {
    if (isPolicyError(error)) {
      process.stderr.write(`evals policy replay: ${error.code}: ${error.message}\n`);
      for (const issue of error.issues) process.stderr.write(`  ${issue.code}: ${issue.message}\n`);
      return EXIT_FOR_POLICY_ERROR[error.code];
    }
    if (isContractError(error) || isFileSystemError(error)) {
      process.stderr.write(`evals policy replay: ${describeError(error)}\n`);
      return REPLAY_EXIT.usage;
    }
    throw error;
  }
  const calls = result.calls.map((call) => ({ ...call, nowMs: Number(call.nowMs) }));
  if (options.json) {
    const { calls: _calls, ...summary } = result;
    process.stdout.write(`${JSON.stringify({ schema: POLICY_REPLAY_REPORT_V1, ...summary, calls })}\n`);
  } else {
    const lines = calls.map(
      (call) =>
        `${call.attemptId}  ${call.callId}  ${call.toolName}  policy=${call.verdict ?? `error ${call.errorCode ?? ''}`}  runner=${call.recordedOutcome ?? 'none'}  ${call.agreement}`,
    );
    const disagreements = calls.filter((call) => call.agreement !== 'agree').length;
    lines.push(
      `${calls.length} tool calls · ${calls.length - disagreements} agree · ${disagreements} differ or undecided · ${result.rowErrors} row errors · bundle ${result.bundleDigest}${result.skipped.length > 0 ? ` (${result.skipped.length} artifacts skipped)` : ''}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return result.rowErrors > 0 ? REPLAY_EXIT.rowErrors : REPLAY_EXIT.ok;
}

/** Attempt files named, and `*.json` regular files under directories (sorted; symlinks not followed). */
async function readAttempts(inputs: readonly string[]): Promise<NativeExecution[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (entry.isFile() && entry.name.endsWith('.json')) files.push(join(dir, entry.name));
    }
  };
  for (const input of inputs) {
    const isDirectory = await readdir(input).then(
      () => true,
      () => false,
    );
    if (isDirectory) await walk(input);
    else files.push(input);
  }
  const attempts: NativeExecution[] = [];
  for (const file of files) attempts.push((await readNativeExecutionFile(file)).bundle);
  return attempts;
}
