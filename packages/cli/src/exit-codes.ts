// The documented exit codes of every `evals` command, and the one place failures are mapped to them.
import { CommanderError } from 'commander';
import { isContractError } from '@paperclip-evals/contract';

import type { ContractErrorCode } from '@paperclip-evals/contract';

export const EXIT = {
  /** Everything checked is valid / compatible. */
  ok: 0,
  /** An attempt bundle was checked and refused. */
  invalid: 1,
  /** Bad usage, or an input that could not be read or is not the document it should be. */
  usage: 2,
  /** The runner release and the consumer are incompatible. */
  incompatible: 3,
  /** The runnerd executable could not be verified (path, digest or build metadata). */
  artifactInvalid: 4,
  /** A bug or an unexpected failure inside Evals. */
  internal: 70,
} as const;

const EXIT_FOR_CONTRACT_ERROR: Record<ContractErrorCode, number> = {
  paperclip_native_execution_invalid: EXIT.invalid,
  paperclip_runner_eval_incompatible: EXIT.incompatible,
  paperclip_runnerd_artifact_invalid: EXIT.artifactInvalid,
  paperclip_contract_document_invalid: EXIT.usage,
  paperclip_canonical_json_invalid: EXIT.usage,
};

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError || isFileSystemError(error)) return EXIT.usage;
  if (isContractError(error)) return EXIT_FOR_CONTRACT_ERROR[error.code];
  return EXIT.internal;
}

/** One readable paragraph for stderr: the message and, for a coded error, every issue. */
export function describeError(error: unknown): string {
  if (isContractError(error)) {
    const lines = error.issues.map((issue) => {
      const where = issue.path ?? issue.component ?? '';
      return `  ${issue.code}${where === '' ? '' : ` at ${where}`}: ${issue.message} (expected ${show(issue.expected)}, received ${show(issue.received)})`;
    });
    return [`${error.code}: ${error.message}`, ...lines].join('\n');
  }
  if (error instanceof UsageError || isFileSystemError(error)) return error.message;
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}

export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

export const isFileSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';

/** A mistake in how the command was called (reported without a stack trace, exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
