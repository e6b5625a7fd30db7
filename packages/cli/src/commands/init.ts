// `evals init`: writes a commented starter Evalbook environment (evalbook.yaml) that loads as is.
// Never overwrites: an existing file is left alone and reported.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { starterEnvironment } from '@paperclip-evals/evalbook';

import { UsageError } from '../exit-codes.js';

export async function runInit(options: { readonly path: string }): Promise<number> {
  const path = resolve(options.path);
  try {
    await writeFile(path, starterEnvironment(), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${options.path} already exists; not overwritten (name another file)`);
    throw error;
  }
  process.stdout.write(
    [
      `wrote ${options.path}: a starter Evalbook environment. Next:`,
      '  1. list your cases and configs with the sha256 of their definitions (evals digest --canonical FILE)',
      '  2. price your models (USD per million tokens) and set a pricing version',
      `  3. evals ingest runs/ --env ${options.path}`,
      `  4. evals report --env ${options.path} --format json --out report.json`,
      '',
    ].join('\n'),
  );
  return 0;
}
