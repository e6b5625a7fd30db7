// The one coded error of the evalbook package (like the contract's ContractError): a closed code and
// every issue found, each with its code, a JSON pointer or component, and what was expected and
// received. Every folder (ledger/, analysis/, report/) throws this and nothing else of its own.
import { CodedError, type Issue } from '@paperclip-evals/contract';

export type EvalbookErrorCode =
  /**
   * A store that cannot be opened or used (unknown scheme, a store from the future, a failed
   * migration, a file that is not a SQLite Evalbook or is corrupt, a read-only store a writer needs).
   */
  | 'paperclip_evalbook_store_unusable'
  /** Ingest called wrongly: no inputs, stdin twice, a bad batch size, an empty directory. */
  | 'paperclip_evalbook_ingest_usage_invalid'
  /** A run or config named for a summary (--run, --a/--b, --a-run/--b-run) that the evalbook lacks. */
  | 'paperclip_evalbook_scope_unknown'
  /** A retraction asked wrongly, or of something the evalbook does not hold: nothing is written. */
  | 'paperclip_evalbook_retraction_refused'
  /** A cost figure the bundle states inconsistently: the attempt is refused, never guessed. */
  | 'paperclip_evalbook_cost_inconsistent'
  /** A cost figure or price that is negative, not an integer, or past the safe bound. */
  | 'paperclip_evalbook_cost_out_of_range'
  /** A campaign id the ledger already records with other content: nothing is written. */
  | 'paperclip_evalbook_campaign_conflict'
  /** Stores copied into one (evals merge --from-store) hold an attempt, verdict or retraction otherwise: nothing is written. */
  | 'paperclip_evalbook_merge_conflict'
  /** A report option that cannot be honoured (an --html-url that is not a plain http(s) URL, or not for Markdown). */
  | 'paperclip_evalbook_report_option_invalid'
  /** A statistic asked of arguments outside its domain (a caller's bug: counts, levels, seeds). */
  | 'paperclip_evalbook_statistics_out_of_range';

export class EvalbookError extends CodedError<EvalbookErrorCode> {
  override readonly name = 'EvalbookError';
}

/** Whether `value` is an EvalbookError (of `code`, when given). */
export function isEvalbookError(value: unknown, code?: EvalbookErrorCode): value is EvalbookError {
  return value instanceof EvalbookError && (code === undefined || value.code === code);
}

/** The code of a store that cannot be used; its issues (when it has any) say what exactly is wrong. */
export const STORE_UNUSABLE = 'paperclip_evalbook_store_unusable' satisfies EvalbookErrorCode;

/** The EvalbookError of a store that cannot be opened or used (the CLI's exit 2). */
export function storeError(
  message: string,
  options: ErrorOptions & { readonly issues?: readonly Issue[] } = {},
): EvalbookError {
  const { issues = [], ...rest } = options;
  return new EvalbookError(STORE_UNUSABLE, message, issues, rest);
}
