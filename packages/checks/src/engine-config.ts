// The engine's settings from its environment (the stdio server reads nothing else): provider,
// models, prices, session budgets (model calls, soft failures), batch time limit, simulation mode,
// the folder assertion specs are recorded in (ATTEST_CONTRACTS_DIR);
// and its stderr logger.
import { statSync } from 'node:fs';
import { jsonText } from '@paperclip-evals/contract';

import { DEFAULT_EVAL_TIMEOUT_MS } from './engine-server.js';
import { ModelGateway } from './model-gateway.js';
import {
  OpenAiCompatibleProvider,
  engineConfigError,
  providerConfigFromEnv,
  sessionBudgetFromEnv,
} from './provider.js';

import type { EngineServerOptions, Log, LogLevel } from './engine-server.js';

export const SIMULATION_ENV = 'ATTEST_SIMULATION';
export const EVAL_TIMEOUT_ENV = 'EVALS_ENGINE_EVAL_TIMEOUT_MS';
export const SESSION_MAX_SOFT_FAILURES_ENV = 'EVALS_ENGINE_SESSION_MAX_SOFT_FAILURES';
/** The Attest engine's switch for judge meta-evaluation (the median of three calls). */
export const JUDGE_META_EVAL_ENV = 'ATTEST_JUDGE_META_EVAL';
/** A folder where every evaluate_batch records its assertion specs and context (seed 003). */
export const CONTRACTS_DIR_ENV = 'ATTEST_CONTRACTS_DIR';
/** The Attest engine's name for the session soft-failure budget (ours wins where both are set). */
export const ATTEST_BUDGET_MAX_COST_ENV = 'ATTEST_BUDGET_MAX_COST';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

type Env = Readonly<Record<string, string | undefined>>;

/** Throws ChecksError engine_config_invalid for a setting that cannot be used. */
export function engineOptionsFromEnv(env: Env, log: Log): EngineServerOptions {
  const provider = providerConfigFromEnv(env);
  const timeoutText = env[EVAL_TIMEOUT_ENV];
  const evalTimeoutMs =
    timeoutText === undefined || timeoutText === '' ? DEFAULT_EVAL_TIMEOUT_MS : Number(timeoutText);
  if (!Number.isSafeInteger(evalTimeoutMs) || evalTimeoutMs <= 0)
    throw engineConfigError(`${EVAL_TIMEOUT_ENV} must be a whole number > 0`);
  // Despite its name, the Attest engine reads ATTEST_BUDGET_MAX_COST as a number of soft failures.
  const softFailuresName = [SESSION_MAX_SOFT_FAILURES_ENV, ATTEST_BUDGET_MAX_COST_ENV].find(
    (name) => env[name] !== undefined && env[name] !== '',
  );
  const sessionMaxSoftFailures = softFailuresName === undefined ? undefined : Number(env[softFailuresName]);
  if (
    sessionMaxSoftFailures !== undefined &&
    !(Number.isSafeInteger(sessionMaxSoftFailures) && sessionMaxSoftFailures >= 0)
  )
    throw engineConfigError(`${softFailuresName ?? ''} must be a whole number ≥ 0`);
  const contractsDir = env[CONTRACTS_DIR_ENV] === '' ? undefined : env[CONTRACTS_DIR_ENV];
  if (contractsDir !== undefined && !isDirectory(contractsDir))
    throw engineConfigError(
      `${CONTRACTS_DIR_ENV} must name a folder that exists; received ${JSON.stringify(contractsDir)}`,
    );
  return {
    simulation: env[SIMULATION_ENV] === '1',
    ...(contractsDir === undefined ? {} : { contractsDir }),
    evalTimeoutMs,
    ...(sessionMaxSoftFailures === undefined ? {} : { sessionMaxSoftFailures }),
    log,
    ...(provider === undefined
      ? {}
      : {
          models: {
            gateway: new ModelGateway(
              new OpenAiCompatibleProvider(provider),
              provider,
              sessionBudgetFromEnv(env),
            ),
            ...(provider.judgeModel === undefined ? {} : { judgeModel: provider.judgeModel }),
            ...(provider.embeddingModel === undefined ? {} : { embeddingModel: provider.embeddingModel }),
            ...(env[JUDGE_META_EVAL_ENV] === 'true' ? { judgeMetaEval: true } : {}),
          },
        }),
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Structured JSON log lines on a stream (stderr), at `level` and above. */
export function jsonLogger(level: LogLevel, write: (line: string) => void): Log {
  const threshold = LOG_LEVELS.indexOf(level);
  return (messageLevel, msg, fields = {}) => {
    if (LOG_LEVELS.indexOf(messageLevel) < threshold) return;
    write(
      // jsonText: a message quoting a trace is as safe in a terminal or CI log as the CLI's --json.
      `${jsonText({ level: messageLevel, ts: new Date().toISOString(), logger: 'engine', msg, ...fields })}\n`,
    );
  };
}
