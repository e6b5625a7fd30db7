// `evals init`: writes a commented starter Evalbook environment (evalbook.yaml) that loads as is.
// Never overwrites: an existing file is left alone and reported (node's writeOutputFile, which
// also writes /dev/stdout or a FIFO in place and refuses a directory or a missing folder).
import { outputTarget, writeOutputFile } from '@paperclip-evals/node';
import { starterEnvironment } from '@paperclip-evals/evalbook';

import { printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

export async function runInit(options: { readonly path: string }): Promise<Outcome> {
  const target = await outputTarget(options.path, { overwrite: false });
  await writeOutputFile(options.path, (write) => write(starterEnvironment()), { overwrite: false });
  // Written to stdout itself (`evals init /dev/stdout`), the next steps go to stderr.
  printLines(target.kind === 'stdio' && target.fd === 1 ? 'stderr' : 'stdout', [
    `wrote ${options.path}: a starter Evalbook environment. Next:`,
    '  1. list your cases and configs with the sha256 of their definitions (evals digest --canonical FILE)',
    '  2. price your models (USD per million tokens) and set a pricing version',
    `  3. evals ingest runs/ --env ${options.path}`,
    `  4. evals report --env ${options.path} --format json --out report.json`,
  ]);
  return 'ok';
}
