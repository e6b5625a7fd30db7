// The Evalbook environment (`evalbook.yaml` or `.json`): loaded strictly (YAML without duplicate keys
// or custom tags, JSON by the contract's strict reader), validated against
// schemas/evals/environment-v1.schema.json and then for what a schema cannot say (unique ids, prices
// we can turn into exact integers, case checks the checks engine accepts). Every issue is reported,
// each with a JSON pointer.
import { readFile } from 'node:fs/promises';
import { evaluateAssertions } from '@paperclip-evals/checks';
import { ContractError, pointer, readJsonText, schemaIssuesOf } from '@paperclip-evals/contract';
import { parseDocument } from 'yaml';

import type { Assertion, Trace } from '@paperclip-evals/checks';
import type { Issue } from '@paperclip-evals/contract';

import { PRICE_DECIMALS, priceToMicros } from './cost.js';
import type { PricingTable } from './cost.js';
import type { DriftThresholdOf } from './check-drift.js';

export const ENVIRONMENT_V1 = 'paperclip-evals/environment/v1';
export const ENVIRONMENT_SCHEMA_ID = 'https://paperclip-evals.dev/schemas/environment/v1.json';

/**
 * The assertion types a case check can use: every engine type but plugin (an SDK submits those) and
 * effect (a native-execution attempt records no world effects: it could never pass).
 */
export type CaseCheckType =
  'schema' | 'constraint' | 'trace' | 'trace_tree' | 'content' | 'embedding' | 'llm_judge';

/**
 * A check every attempt of the case gets a verdict for: reported by the runner (no `type`), or
 * evaluated by Evals at ingest with the checks engine (`type` and `spec`, the engine's vocabulary).
 */
export interface CaseCheck {
  readonly id: string;
  readonly description?: string;
  readonly type?: CaseCheckType;
  readonly spec?: Readonly<Record<string, unknown>>;
  /** Static threshold of this check's drift bar in reports. */
  readonly driftThreshold?: number;
}

export interface EnvironmentCase {
  readonly id: string;
  readonly sha256: string;
  readonly description?: string;
  readonly checks?: readonly CaseCheck[];
}

export interface EnvironmentConfig {
  readonly id: string;
  readonly sha256: string;
  readonly model: string;
  readonly driver: string;
  readonly description?: string;
}

export interface Environment {
  readonly schema: typeof ENVIRONMENT_V1;
  readonly name: string;
  readonly store?: string;
  readonly cases: readonly EnvironmentCase[];
  readonly configs: readonly EnvironmentConfig[];
  readonly pricing?: PricingTable;
  readonly budgets?: { readonly perRunUsd?: number; readonly perConfigUsd?: number };
  readonly report?: {
    readonly title?: string;
    readonly denominator?: 'all_attempts' | 'evaluated_only';
    readonly driftThreshold?: number;
    readonly formats?: readonly string[];
  };
}

const invalid = (message: string, issues: readonly Issue[]): ContractError =>
  new ContractError('paperclip_contract_document_invalid', message, issues);

/** Parses YAML strictly: duplicate keys, unresolved (custom) tags and any warning are errors. */
function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  const document = parseDocument(text, {
    uniqueKeys: true,
    strict: true,
    customTags: [],
    prettyErrors: true,
  });
  const problems = [...document.errors, ...document.warnings];
  if (problems.length > 0)
    return {
      ok: false,
      issues: problems.map((problem) => ({
        code: problem.code === 'DUPLICATE_KEY' ? 'yaml_duplicate_key' : `yaml_${problem.code.toLowerCase()}`,
        message: problem.message.split('\n')[0] ?? problem.message,
        path: '',
        expected: 'strict YAML (unique keys, no custom tags)',
        received:
          problem.linePos === undefined
            ? problem.code
            : `line ${problem.linePos[0].line}, column ${problem.linePos[0].col}`,
      })),
    };
  return { ok: true, value: document.toJS({ maxAliasCount: 100 }) as unknown };
}

/** Validates an already parsed document; returns the environment or throws with every issue. */
export function parseEnvironment(value: unknown): Environment {
  const issues: Issue[] = schemaIssuesOf(ENVIRONMENT_SCHEMA_ID, value, () => 'environment_schema');
  if (issues.length > 0) throw invalid('the environment does not match its schema', issues);
  const environment = value as Environment;
  const unique = (list: readonly { id: string }[], where: string, ...at: (string | number)[]): void => {
    const seen = new Set<string>();
    list.forEach((item, index) => {
      if (seen.has(item.id))
        issues.push({
          code: 'environment_duplicate_id',
          message: `${where} id ${item.id} appears more than once`,
          path: pointer(...at, index, 'id'),
          expected: 'unique ids',
          received: item.id,
        });
      seen.add(item.id);
    });
  };
  unique(environment.cases, 'case', 'cases');
  unique(environment.configs, 'config', 'configs');
  environment.cases.forEach((entry, index) => {
    unique(entry.checks ?? [], `case ${entry.id}: check`, 'cases', index, 'checks');
  });
  for (const [model, price] of Object.entries(environment.pricing?.models ?? {}))
    for (const kind of ['inputPerMillionUsd', 'outputPerMillionUsd'] as const)
      if (priceToMicros(price[kind]) === null)
        issues.push({
          code: 'environment_price_precision',
          message: `price ${kind} of ${model} has more than ${PRICE_DECIMALS} decimal places`,
          path: pointer('pricing', 'models', model, kind),
          expected: `a non-negative USD amount with at most ${PRICE_DECIMALS} decimals`,
          received: price[kind],
        });
  if (issues.length > 0) throw invalid('the environment is inconsistent', issues);
  return environment;
}

/** The engine checks of a case (those Evals evaluates), as assertions whose ids are the check ids. */
export function caseAssertions(envCase: EnvironmentCase | undefined): Assertion[] {
  const assertions: Assertion[] = [];
  for (const check of envCase?.checks ?? [])
    if (check.type !== undefined && check.spec !== undefined)
      assertions.push({ assertion_id: check.id, type: check.type, spec: check.spec });
  return assertions;
}

/** An empty trace: what a spec is tried on at load, so a check the engine refuses is found before ingest. */
const EMPTY_TRACE: Trace = {
  schema_version: 1,
  trace_id: 'environment-check',
  agent_id: 'environment-check',
  input: {},
  steps: [],
  output: {},
  metadata: {},
};

/**
 * Issues for engine checks whose spec the checks engine refuses (its `invalid_spec` verdict), found by
 * evaluating each case's checks once over an empty trace with no model provider (no network).
 */
export async function caseCheckIssues(environment: Environment): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const [caseIndex, envCase] of environment.cases.entries()) {
    const assertions = caseAssertions(envCase);
    if (assertions.length === 0) continue;
    const { results } = await evaluateAssertions(EMPTY_TRACE, assertions);
    for (const result of results) {
      if (result.failure_class === undefined) continue;
      const checkIndex = (envCase.checks ?? []).findIndex((check) => check.id === result.assertion_id);
      issues.push({
        code: 'environment_check_spec',
        message: `check ${result.assertion_id} of case ${envCase.id}: ${result.explanation}`,
        path: pointer('cases', caseIndex, 'checks', checkIndex, 'spec'),
        expected: `a ${result.type} spec the checks engine accepts (docs/checks-engine.md)`,
        received: result.failure_class,
      });
    }
  }
  return issues;
}

/** Loads `evalbook.yaml` / `.yml` / `.json`. I/O errors reject with the fs error. */
export async function loadEnvironment(path: string): Promise<Environment> {
  const bytes = await readFile(path);
  const parsed = /\.json$/i.test(path) ? readJsonText(bytes) : parseYaml(bytes.toString('utf8'));
  if (!parsed.ok)
    throw invalid(
      `${path} is not a strict ${/\.json$/i.test(path) ? 'JSON' : 'YAML'} document`,
      parsed.issues,
    );
  let environment: Environment;
  try {
    environment = parseEnvironment(parsed.value);
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    throw invalid(`${path}: ${error.message}`, error.issues);
  }
  const issues = await caseCheckIssues(environment);
  if (issues.length > 0) throw invalid(`${path} has case checks the checks engine refuses`, issues);
  return environment;
}

/** The environment's config by id, or undefined. */
export function configOf(
  environment: Environment | undefined,
  configId: string,
): EnvironmentConfig | undefined {
  return environment?.configs.find((config) => config.id === configId);
}

/** The environment's case by id, or undefined. */
export function caseOf(environment: Environment | undefined, caseId: string): EnvironmentCase | undefined {
  return environment?.cases.find((entry) => entry.id === caseId);
}

/**
 * Each check's static drift threshold as the environment sets it: the check's own `driftThreshold`,
 * else the environment's `report.driftThreshold` (undefined: the engine's default).
 */
export function driftThresholdsOf(environment: Environment | undefined): DriftThresholdOf {
  return (caseId, checkId) =>
    caseOf(environment, caseId)?.checks?.find((check) => check.id === checkId)?.driftThreshold ??
    environment?.report?.driftThreshold;
}

/** What `evals init` writes: a commented starter environment that loads as is. */
export function starterEnvironment(): string {
  return `# Evalbook environment (paperclip-evals/environment/v1).
# The eval suite as data: cases, configs, a versioned pricing table, budgets and report settings.
# Validated against schemas/evals/environment-v1.schema.json; duplicate keys and custom tags are refused.
schema: paperclip-evals/environment/v1
name: my-suite

# Default store; \`evals ingest --store\` wins. SQLite is a single file.
store: sqlite:.evalbook/evalbook.sqlite

# Each case: its id, the sha256 of its definition (\`evals ingest\` refuses an attempt whose case
# is not listed here or whose input.caseSha256 differs: not of this suite; --keep-foreign stores
# such attempts apart) and the checks it expects a verdict for. A check
# without \`type\` is reported by the runner; one with \`type\` and \`spec\` is written in the checks
# engine's vocabulary (docs/checks-engine.md) and evaluated by \`evals ingest\` over each attempt.
cases:
  - id: case_example
    sha256: sha256:0000000000000000000000000000000000000000000000000000000000000000
    checks:
      - id: example-check
        description: the agent did what the case asked
      - id: few-tool-calls
        description: at most 20 tool calls
        type: constraint
        spec: { field: steps.length, operator: lte, value: 20 }
      - id: no-shell
        type: trace
        spec: { check: forbidden_tools, tools: [shell.exec] }

# Each config: id, sha256 of its definition, the model (looked up in pricing) and the driver.
configs:
  - id: config_example
    sha256: sha256:0000000000000000000000000000000000000000000000000000000000000000
    model: example-model
    driver: paperclip-deterministic

# USD per million tokens per model and token kind (at most ${PRICE_DECIMALS} decimals). Estimates
# record this version; history is never repriced. A model missing here is "unpriced", never free.
pricing:
  version: "2026-11-01"
  models:
    example-model:
      inputPerMillionUsd: 3
      outputPerMillionUsd: 15

budgets:
  perRunUsd: 50
  perConfigUsd: 20

report:
  title: My suite
  # all_attempts: infra errors and missing verdicts count against the pass rate's denominator.
  denominator: all_attempts
  # A check drifts when its newest run scores below max(this, mean − 2·sd of earlier runs).
  driftThreshold: 0.8
`;
}
