// `evals init`: writes a commented starter Evalbook environment (evalbook.yaml) that loads as is and
// that `evals run` runs as is against the reference runner release (its stand-in provider, priced).
// Never overwrites: an existing file is left alone and reported (node's writeOutputFile, which
// also writes /dev/stdout or a FIFO in place and refuses a directory or a missing folder).
import { shellCommand } from '@paperclip-evals/contract';
import { outputTarget, writeOutputFile } from '@paperclip-evals/node';
import { starterEnvironment } from '@paperclip-evals/evalbook';

import { printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

export async function runInit(options: { readonly path: string }): Promise<Outcome> {
  const target = await outputTarget(options.path, { overwrite: false });
  await writeOutputFile(options.path, (write) => write(starterEnvironment()), { overwrite: false });
  // Written to a stream (stdout, a FIFO, a device), the environment is no file the next steps can
  // name: they name the file it is saved as. Every path in them is shell-quoted (contract's shellCommand).
  const saved = target.kind === 'new' || target.kind === 'file';
  const env = saved ? options.path : 'evalbook.yaml';
  // Written to stdout itself (`evals init -`, /dev/stdout), the next steps go to stderr.
  printLines(target.kind === 'stdio' && target.fd === 1 ? 'stderr' : 'stdout', [
    saved
      ? `wrote ${options.path}: a starter Evalbook environment. It runs as is on the reference runner release (README: pnpm demo builds one). Next:`
      : `wrote a starter Evalbook environment to ${options.path}: it runs as is on the reference runner release (README: pnpm demo builds one). Save it as a file first (${shellCommand(['evals', 'init', env])}, or ${shellCommand(['evals', 'init', '-'])} > ${env}): the next steps name that file. Next:`,
    `  1. ${shellCommand(['evals', 'run', '--release-dir', 'RELEASE', '--env', env, '--campaign', 'first-1', '--out', 'campaign.json'])}`,
    `  2. for a real release: your provider, models and prices, cases and their sha256 (a YAML or JSON definition each: evals digest --canonical FILE); the file says where`,
    `  3. ${shellCommand(['evals', 'ingest', 'runs/', '--env', env])}   (attempts a runner wrote elsewhere)`,
    `  4. ${shellCommand(['evals', 'report', '--env', env, '--format', 'json', '--out', 'report.json'])}`,
  ]);
  return 'ok';
}
