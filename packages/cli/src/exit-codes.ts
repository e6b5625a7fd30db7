// The documented exit codes of every `evals` command, and the one place failures are mapped to them.
import { CommanderError } from 'commander';

export const EXIT = {
  /** Everything checked is valid / compatible. */
  ok: 0,
  /** An input was checked and refused (invalid bundle, incompatible release). */
  invalid: 1,
  /** Bad usage or an input that could not be read. */
  usage: 2,
  /** A bug or an unexpected failure inside Evals. */
  internal: 70,
} as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) return EXIT.usage;
  return EXIT.internal;
}

export function describeError(error: unknown): string {
  if (error instanceof Error)
    return error instanceof UsageError ? error.message : (error.stack ?? error.message);
  return String(error);
}

/** A mistake in how the command was called (reported without a stack trace, exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
