// `evals init`: writes a commented starter Evalbook environment (evalbook.yaml) that loads as is and
// that `evals run` runs as is against the reference runner release (its stand-in provider, priced).
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
    `wrote ${options.path}: a starter Evalbook environment. It runs as is on the reference runner release (README: pnpm demo builds one). Next:`,
    `  1. evals run --release-dir RELEASE --env ${options.path} --campaign first-1 --out campaign.json`,
    '  2. for a real release: your provider, models and prices, cases and their sha256 (a YAML or JSON definition each: evals digest --canonical FILE); the file says where',
    `  3. evals ingest runs/ --env ${options.path}   (attempts a runner wrote elsewhere)`,
    `  4. evals report --env ${options.path} --format json --out report.json`,
  ]);
  return 'ok';
}
