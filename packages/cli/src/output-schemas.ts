// The schema id of every JSON output the commands print (each with its JSON Schema under
// schemas/evals/, docs/reports.md lists them). Here, apart from the commands, so that the command
// tree can name a command's failure schema without loading the command.
export const VALIDATE_REPORT_V1 = 'paperclip-evals/validate-report/v1';
export const INGEST_REPORT_V1 = 'paperclip-evals/ingest-report/v1';
/** `evals grid --json`: the grid, or (on a failure) {schema, exitCode, error}. */
export const GRID_REPORT_V1 = 'paperclip-evals/grid/v1';
/** `evals compare --json`: the comparison, or (on a failure) {schema, exitCode, error}. */
export const COMPARE_REPORT_V1 = 'paperclip-evals/compare/v1';
export const RETRACTION_REPORT_V1 = 'paperclip-evals/retraction-report/v1';
/** `evals runs --json`: the runs, or (on a failure) {schema, exitCode, error}. */
export const RUNS_V1 = 'paperclip-evals/runs/v1';
/** `evals migrate --json`: the versions before and after, or (on a failure) {schema, exitCode, error}. */
export const MIGRATE_V1 = 'paperclip-evals/migrate/v1';
/** `evals policy replay --json`: the replay, or (on a failure) {schema, exitCode, error}. */
export const POLICY_REPLAY_REPORT_V1 = 'paperclip-evals/policy-replay/v1';
/** `evals publish --json`: what was published, or (on a failure) {schema, exitCode, error}. */
export const PUBLISH_V1 = 'paperclip-evals/publish/v1';
/**
 * A failing `qualify --json` and `digest --json`: the `schema` of their {schema, exitCode, error}
 * object (their results, a qualification record and the digests, carry another schema id or none;
 * `run` and `merge` name `paperclip-evals/campaign/v1` likewise, in commands/campaign-program.ts).
 */
export const QUALIFY_V1 = 'paperclip-evals/qualify/v1';
export const DIGEST_V1 = 'paperclip-evals/digest/v1';
/**
 * A `negotiate --json` and `runnerd inspect --json` failure that is not the runner contract's own
 * (a usage error, an unreadable input): the `schema` of their {schema, exitCode, error} object (a
 * contract failure is their own {ok: false, code, …}, their result carries no schema member).
 */
export const NEGOTIATE_V1 = 'paperclip-evals/negotiate/v1';
export const RUNNERD_INSPECT_V1 = 'paperclip-evals/runnerd-inspect/v1';
