// Reading a small JSON contract document (build metadata, requirements, catalog) from a file under
// the same strict text rules as attempt bundles; any failure is one coded error with every issue.
import { ContractError, readJsonText } from '@paperclip-evals/contract';

import { readRegularFile } from './native-execution-input.js';

export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * The JSON value in `path`. Throws ContractError('paperclip_contract_document_invalid') naming the
 * file for bad JSON; I/O failures reject with the fs error (e.g. ENOENT).
 */
export async function readJsonDocument(path: string, what: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    // Its size before a byte is read: a document over the limit is input_too_large, never read.
    bytes = await readRegularFile(path, { maxBytes: MAX_DOCUMENT_BYTES });
  } catch (error) {
    if (error instanceof ContractError)
      throw new ContractError(
        'paperclip_contract_document_invalid',
        `${what} (${path}) is over the ${MAX_DOCUMENT_BYTES}-byte limit of a document (not read)`,
        error.issues,
      );
    // Keep the fs error (its code and syscall say "I/O"), but say which document it was.
    if (error instanceof Error) error.message = `cannot read ${what} ${path}: ${error.message}`;
    throw error;
  }
  const result = readJsonText(bytes, { maxBytes: MAX_DOCUMENT_BYTES });
  if (!result.ok) {
    throw new ContractError(
      'paperclip_contract_document_invalid',
      `${what} (${path}) is not strict JSON`,
      result.issues,
    );
  }
  return result.value;
}
