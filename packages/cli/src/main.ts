// Entry point of the `evals` binary: run one command (runProgram) and exit with its code.
import { stdioWriteFailed } from '@paperclip-evals/node';

import { createProgram, runProgram } from './program.js';
import { errorLines, exitCodeFor } from './exit-codes.js';
import { printLines } from './print.js';

export async function main(argv: readonly string[]): Promise<void> {
  // A reader that stops early (`evals … | head`, a pager closed) is not an error: the command still
  // runs to the end so its exit code carries the verdict. Any other failure to write results (a full
  // disk, an I/O error) is an output failure, as `--out` on such a path is: its code, exit 2.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    const failure = stdioWriteFailed('stdout', error);
    printLines('stderr', errorLines('evals: ', failure));
    process.exit(exitCodeFor(failure));
  });
  process.exitCode = await runProgram(argv, createProgram());
}
