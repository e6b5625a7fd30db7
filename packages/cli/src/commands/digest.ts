// `evals digest`: the sha256 digest of files as Evals computes them — of the bytes, or with
// --canonical of the RFC 8785 canonical form of the document's value (what a semantic catalog
// digest, a case or config digest is taken over): JSON, or a `.yaml`/`.yml` definition read as the
// environment loader reads YAML, so the digest is the one the environment lists.
import { resolve } from 'node:path';
import { canonicalDigest } from '@paperclip-evals/contract';
import { definitionDigest } from '@paperclip-evals/evalbook';
import { digestFile, readJsonDocument } from '@paperclip-evals/node';

import { printJson, printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

export interface DigestOptions {
  readonly files: readonly string[];
  readonly canonical: boolean;
  readonly json: boolean;
}

/** `evals digest --json` (schemas/evals/digest-v1.schema.json; it carries no `schema` member). */
export interface DigestReport {
  readonly canonical: boolean;
  readonly files: readonly { readonly file: string; readonly sha256: string }[];
}

/** A case or config definition in YAML, read by the environment loader's parser (evalbook's definitionDigest). */
const YAML_FILE = /\.ya?ml$/i;

export async function runDigest(options: DigestOptions): Promise<Outcome> {
  const results: DigestReport['files'][number][] = [];
  for (const file of options.files) {
    const path = resolve(file);
    const sha256 = !options.canonical
      ? (await digestFile(path)).digest
      : YAML_FILE.test(path)
        ? await definitionDigest(path)
        : canonicalDigest(await readJsonDocument(path, 'JSON document'));
    results.push({ file, sha256 });
  }
  if (options.json) printJson({ canonical: options.canonical, files: results } satisfies DigestReport);
  else
    printLines(
      'stdout',
      results.map(({ file, sha256 }) => `${sha256}  ${file}`),
    );
  return 'ok';
}
