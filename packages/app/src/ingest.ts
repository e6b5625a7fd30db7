// Ingest with case checks: the workflow behind `evals ingest`. The Evalbook's ingest evaluates each
// case's checks over each attempt with the checks engine; model-layer checks (llm_judge,
// embedding) get the provider the engine itself would get from the same EVALS_ENGINE_PROVIDER_*
// (or ATTEST_*) variables, so `evals engine` and `evals ingest` judge with one provider setting.
// Without one those checks are stored not_evaluated, never a pass.
import { engineOptionsFromEnv } from '@paperclip-evals/checks';
import { ingest } from '@paperclip-evals/evalbook';

import type { CaseCheckModels, IngestOptions, IngestSummary } from '@paperclip-evals/evalbook';

export interface IngestRequest extends Omit<IngestOptions, 'models'> {
  /** The process environment the provider settings are read from (the checks engine's variables). */
  readonly variables: Readonly<Record<string, string | undefined>>;
}

/** Ingests the attempts; an unusable provider setting is the checks package's ChecksError engine_config_invalid, before anything is read. */
export async function ingestAttempts(request: IngestRequest): Promise<IngestSummary> {
  const { variables, ...options } = request;
  const models = caseCheckModels(variables);
  return ingest({ ...options, ...(models === undefined ? {} : { models }) });
}

/** The provider for model-layer case checks, from the engine's variables; undefined when none is set. */
function caseCheckModels(variables: IngestRequest['variables']): CaseCheckModels | undefined {
  return engineOptionsFromEnv(variables, () => undefined).models;
}
