// Entry point of the `evals` binary: parse argv, run one command, map any failure to its exit code.
import { CommanderError } from 'commander';

import { createProgram } from './program.js';
import { EXIT, errorLines, exitCodeFor } from './exit-codes.js';
import { printLines } from './print.js';

export async function main(argv: readonly string[]): Promise<void> {
  // A reader that stops early (`evals … | head`) is not an error: the command still runs to the end
  // so its exit code carries the verdict. Any other failure to write results is an internal error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    printLines('stderr', [`evals: cannot write results to stdout (${error.code ?? error.message})`]);
    process.exit(EXIT.internal);
  });
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    // Commander has already written its own message (usage errors, --help, --version).
    if (!(error instanceof CommanderError)) printLines('stderr', errorLines('evals: ', error));
    process.exitCode = exitCodeFor(error);
  }
}
