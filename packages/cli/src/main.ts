// Entry point of the `evals` binary: parse argv, run one command, map any failure to its exit code.
import { createProgram } from './program.js';
import { describeError, exitCodeFor } from './exit-codes.js';

export async function main(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    process.stderr.write(`evals: ${describeError(error)}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
