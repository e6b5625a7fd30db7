// The package's coded errors: one base (a closed set of codes, a message, and every issue found)
// and the three classes upstream's ./evals names (native execution, runnerd artifact, compatibility),
// each with upstream's code and its own field (`path`, `issue`, `consumer`).
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
  override readonly name: string = 'PaperclipRunnerError';
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

/** A native-execution bundle the parser refuses: `path` is the first issue's JSON pointer. */
export class PaperclipNativeExecutionError extends PaperclipRunnerError {
  override readonly name = 'PaperclipNativeExecutionError';
  readonly path: string;

  constructor(message: string, issues: readonly PaperclipRunnerIssue[]) {
    super('paperclip_native_execution_invalid', message, issues);
    this.path = issues[0]?.path ?? '';
  }
}

/** A negotiation that failed: every issue, for the consumer named. */
export class PaperclipRunnerEvalCompatibilityError extends PaperclipRunnerError {
  override readonly name = 'PaperclipRunnerEvalCompatibilityError';
  readonly consumer: string;

  constructor(consumer: string, message: string, issues: readonly PaperclipRunnerIssue[]) {
    super('paperclip_runner_eval_incompatible', message, Object.freeze([...issues]));
    this.consumer = consumer;
  }
}

/** A runnerd artifact failure: `issue` names the one thing that is wrong. */
export class PaperclipRunnerdArtifactError extends PaperclipRunnerError {
  override readonly name = 'PaperclipRunnerdArtifactError';
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
