// The package's one coded error: a closed set of codes, a message, and every issue found.
export type PaperclipRunnerErrorCode =
  | 'paperclip_native_execution_invalid'
  | 'paperclip_runner_eval_incompatible'
  | 'paperclip_runnerd_artifact_invalid'
  | 'paperclip_eval_session_request_invalid'
  | 'harness_driver_config_invalid'
  | 'harness_driver_feature_unsupported'
  | 'harness_driver_session_state_invalid';

export interface PaperclipRunnerIssue {
  readonly code: string;
  readonly message: string;
  /** JSON pointer into the document at fault. */
  readonly path?: string;
  /** The contract component at fault (package, binary, prp, catalog, driver, nativeExecution, runnerd). */
  readonly component?: string;
  readonly expected?: string;
  readonly received?: string;
}

export class PaperclipRunnerError extends Error {
  override readonly name = 'PaperclipRunnerError';
  readonly code: PaperclipRunnerErrorCode;
  readonly issues: readonly PaperclipRunnerIssue[];

  constructor(
    code: PaperclipRunnerErrorCode,
    message: string,
    issues: readonly PaperclipRunnerIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = code;
    this.issues = issues;
  }
}

/** A runnerd artifact failure: `issue` names the one thing that is wrong. */
export class PaperclipRunnerdArtifactError extends PaperclipRunnerError {
  readonly issue: RunnerdArtifactIssue;

  constructor(issue: RunnerdArtifactIssue, message: string, options?: ErrorOptions) {
    super(
      'paperclip_runnerd_artifact_invalid',
      message,
      [{ code: issue, component: 'runnerd', message }],
      options,
    );
    this.issue = issue;
  }
}

export type RunnerdArtifactIssue =
  'path_invalid' | 'digest_invalid' | 'digest_mismatch' | 'metadata_unavailable' | 'metadata_invalid';

export function isPaperclipRunnerError(value: unknown): value is PaperclipRunnerError {
  return value instanceof PaperclipRunnerError;
}
