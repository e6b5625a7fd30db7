// The one coded error of the app package: a workflow's own refusal (a request it cannot serve, an
// input it cannot use), with every issue found. The libraries' errors (ContractError, PolicyError,
// EvalbookError, …) pass through a workflow as they are.
import { CodedError } from '@paperclip-evals/contract';

export type AppErrorCode =
  /** The request cannot be served as given (nothing to work on, stdin named twice, an output that would clobber an input). */
  | 'paperclip_app_request_invalid'
  /** An input the request names cannot be used (missing, not a directory, unreadable, or decides nothing). */
  | 'paperclip_app_input_invalid'
  /** A published campaign folder exists with other bytes: campaign folders are immutable, nothing was changed. */
  | 'paperclip_app_site_conflict'
  /** `evals publish --verify`: the site has a defect (each one an issue with its own code). */
  | 'paperclip_app_site_invalid';

export class AppError extends CodedError<AppErrorCode> {
  override readonly name = 'AppError';
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
