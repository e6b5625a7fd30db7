// The one coded error of the contract package, and CodedError, the base every Evals package's coded
// error extends (AppError, CampaignError, ChecksError, EvalbookError, PolicyError, QualificationError):
// a closed code and every issue found (never just the first), each located by a JSON pointer or a
// component. Each package keeps its own class, name and code union; only the shape is shared.

export type ContractErrorCode =
  | 'paperclip_native_execution_invalid'
  /** An eval-session-artifact/v1 (or the native bundle it references) is not what the contract says. */
  | 'paperclip_eval_session_artifact_invalid'
  | 'paperclip_runnerd_artifact_invalid'
  | 'paperclip_runner_eval_incompatible'
  | 'paperclip_canonical_json_invalid'
  /** A contract document given to Evals (build metadata, consumer requirements) is not what its schema says. */
  | 'paperclip_contract_document_invalid'
  /** A path Evals was asked to write is refused (a directory, socket, missing folder…) or cannot be written. */
  | 'paperclip_output_unwritable';

export interface Issue {
  /** Rule code, e.g. `digest_malformed`, `json_duplicate_key`. */
  readonly code: string;
  readonly message: string;
  /** RFC 6901 JSON pointer into the document ('' is the root). */
  readonly path?: string;
  /** The contract component, where the issue is not about one place in a document. */
  readonly component?: string;
  readonly expected?: unknown;
  readonly received?: unknown;
}

/**
 * The shape of every package's coded error: `code` from the package's closed union, and `issues`,
 * every problem found. Abstract: a package throws its own subclass (its `name` and its codes), so
 * `instanceof AppError` still tells one package's error from another's.
 */
export abstract class CodedError<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly issues: readonly Issue[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export class ContractError extends CodedError<ContractErrorCode> {
  override readonly name = 'ContractError';
}

export function isContractError(value: unknown): value is ContractError {
  return value instanceof ContractError;
}

/** Escapes one reference token of a JSON pointer (RFC 6901 §3). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Joins reference tokens into a JSON pointer. */
export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((token) => `/${pointerToken(token)}`).join('');
}
