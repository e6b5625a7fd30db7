// Entry point of the `evals` binary: run one command (runProgram) and exit with its code.
import { createProgram, runProgram } from './program.js';
import { EXIT } from './exit-codes.js';
import { printLines } from './print.js';

export async function main(argv: readonly string[]): Promise<void> {
  // A reader that stops early (`evals … | head`) is not an error: the command still runs to the end
  // so its exit code carries the verdict. Any other failure to write results is an internal error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    printLines('stderr', [`evals: cannot write results to stdout (${error.code ?? error.message})`]);
    process.exit(EXIT.internal);
  });
  process.exitCode = await runProgram(argv, createProgram());
}
