// `evals digest`: the sha256 digest of files as Evals computes them — of the bytes, or with
// --canonical of the RFC 8785 canonical form of the document's value (what a semantic catalog
// digest, a case or config digest is taken over): JSON, or a `.yaml`/`.yml` definition read as the
// environment loader reads YAML, so the digest is the one the environment lists. Like sha256sum
// and validate, every readable file is digested: a file that cannot be (unreadable, or with
// --canonical not strict JSON/YAML) is one coded line on stderr (an entry of `failed` with --json)
// and the command ends `unreadable` (exit 2) once every other file is printed. One file named and
// refused is the command's own failure, as before (its coded error).
import { resolve } from 'node:path';
import { CodedError, canonicalDigest } from '@paperclip-evals/contract';
import { definitionDigest } from '@paperclip-evals/evalbook';
import { digestFile, readJsonDocument } from '@paperclip-evals/node';

import { errorLines, isFileSystemError, unreadableInput } from '../exit-codes.js';
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
  /** The files that could not be digested, each with its coded error (present only when there are some). */
  readonly failed?: readonly { readonly file: string; readonly code: string; readonly message: string }[];
}

/** A case or config definition in YAML, read by the environment loader's parser (evalbook's definitionDigest). */
const YAML_FILE = /\.ya?ml$/i;

export async function runDigest(options: DigestOptions): Promise<Outcome> {
  const results: DigestReport['files'][number][] = [];
  const failed: (NonNullable<DigestReport['failed']>[number] & { readonly error: CodedError<string> })[] = [];
  for (const file of options.files) {
    const path = resolve(file);
    try {
      const sha256 = !options.canonical
        ? (await digestFile(path)).digest
        : YAML_FILE.test(path)
          ? await definitionDigest(path)
          : canonicalDigest(await readJsonDocument(path, 'JSON document'));
      results.push({ file, sha256 });
    } catch (error) {
      const coded: unknown = isFileSystemError(error) ? unreadableInput(error) : error;
      // Only a file's own coded refusal is per file; anything else is no verdict on the file.
      if (!(coded instanceof CodedError)) throw error;
      const refusal = coded as CodedError<string>;
      failed.push({ file, code: refusal.code, message: refusal.message, error: refusal });
    }
  }
  // One file named and refused: the command failed as a whole, as it always did (its coded error,
  // with --json the failure document with every issue).
  const [only] = failed;
  if (only !== undefined && options.files.length === 1) throw only.error;
  if (options.json)
    printJson({
      canonical: options.canonical,
      files: results,
      ...(failed.length === 0
        ? {}
        : { failed: failed.map(({ file, code, message }) => ({ file, code, message })) }),
    } satisfies DigestReport);
  else {
    printLines(
      'stdout',
      results.map(({ file, sha256 }) => `${sha256}  ${file}`),
    );
    for (const { file, error } of failed) printLines('stderr', errorLines(`evals digest: ${file}: `, error));
  }
  return failed.length === 0 ? 'ok' : 'unreadable';
}
