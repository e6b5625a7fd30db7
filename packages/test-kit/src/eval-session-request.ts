// An eval-session request (`paperclip-runner/eval-session-request/v1`) for the deterministic
// provider, as the tests of the package's bin and of `evals` write one: the same prompt, model,
// limits and case, with the runnerd, run and seed each test names, and any field replaced by `edit`.

export interface EvalSessionRequestOptions {
  readonly attemptId: string;
  /** The runnerd executable the session runs, by path and digest. */
  readonly runnerd: { readonly path: string; readonly sha256: string };
  readonly runId: string;
  /** The session's seed; the attempt id when not given. */
  readonly seed?: string;
  /** The turn's time limit (30 s by default). */
  readonly turnTimeoutMs?: number;
}

export function evalSessionRequest(
  options: EvalSessionRequestOptions,
  edit: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schema: 'paperclip-runner/eval-session-request/v1',
    attemptId: options.attemptId,
    prompt: 'Summarise the quarterly incident review in the brief document.',
    model: 'paperclip-deterministic-1',
    provider: 'paperclip_deterministic',
    runnerd: { path: options.runnerd.path, sha256: options.runnerd.sha256 },
    limits: {
      turnTimeoutMs: options.turnTimeoutMs ?? 30_000,
      maxAgentTurns: 50,
      maxEstimatedCostNanodollars: 100_000_000,
    },
    session: { runId: options.runId, seed: options.seed ?? options.attemptId },
    evalCase: {
      caseId: 'case_summary',
      caseSha256: `sha256:${'a'.repeat(64)}`,
      configId: 'config_a',
      configSha256: `sha256:${'b'.repeat(64)}`,
    },
    ...edit,
  };
}
