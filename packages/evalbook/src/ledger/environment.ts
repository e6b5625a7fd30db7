// The Evalbook environment (`evalbook.yaml` or `.json`): loaded strictly (YAML without duplicate keys
// or custom tags, JSON by the contract's strict reader), validated against
// schemas/evals/environment-v1.schema.json and then for what a schema cannot say (unique ids, prices
// we can turn into exact integers, case checks the checks engine accepts). Every issue is reported,
// each with a JSON pointer.
import { isUtf8 } from 'node:buffer';
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { evaluateAssertions } from '@paperclip-evals/checks';
import { FILE_KIND_PHRASE, fileKindOf } from '@paperclip-evals/node';
import {
  ContractError,
  DEFAULT_MAX_JSON_DEPTH,
  canonicalDigest,
  pointer,
  readJsonText,
  schemaIssuesOf,
  scrubCredentials,
} from '@paperclip-evals/contract';

import type { Assertion, Trace } from '@paperclip-evals/checks';
import type { Issue } from '@paperclip-evals/contract';
import type * as Yaml from 'yaml';

import { PRICE_DECIMALS, priceToMicros } from './cost.js';
import type { PricingTable } from './cost.js';

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
  /** What the agent is asked (the eval-session request's prompt); `evals run` needs it. */
  readonly prompt?: string;
  /** Sent as the eval-session request's `session` object, as is. */
  readonly session?: Readonly<Record<string, unknown>>;
  readonly checks?: readonly CaseCheck[];
}

/** How `evals run` runs a config: the eval-session provider, model and driver (upstream's lane). */
export interface EnvironmentLane {
  readonly provider: string;
  /** Default: the config's model. */
  readonly model?: string;
  /** Default: none sent (the eval-session derives it from the provider). */
  readonly driver?: string;
  /** Default true; a disabled lane runs only when named. */
  readonly enabled?: boolean;
  /** acpx: the request's acpxAgent (upstream's registered ACPX profiles). */
  readonly acpx_agent?: 'codex' | 'claude' | 'grok' | 'pi' | 'cursor' | 'copilot' | 'hermes';
  /** acpx: the bin's --candidate-profile flag (a candidate ACPX agent, the lane's acpx_agent). */
  readonly candidate_profile?: 'pi' | 'cursor' | 'copilot' | 'hermes';
  /** acpx: the bin's --expected-acpx-profile flag (sent as JSON): the built runner's ACPX profile. */
  readonly expected_acpx_profile?: Readonly<Record<string, string | number | boolean | null>>;
  /** opencode: the request's opencodeVersion. */
  readonly opencode_version?: string;
  /** claude_managed (required there): the request's managedProfile, upstream's shape. */
  readonly managed_profile?: Readonly<Record<string, unknown>>;
  /** aws_agentcore (required there): the request's agentCoreProfile, upstream's shape. */
  readonly agent_core_profile?: Readonly<Record<string, unknown>>;
}

/** Per-attempt limits of the eval-session request; the cost limit in USD or in nanodollars, once. */
export interface EnvironmentLimits {
  readonly turn_timeout_ms: number;
  readonly max_agent_turns: number;
  readonly max_estimated_cost_usd?: number;
  readonly max_estimated_cost_nanodollars?: number;
}

/** What `evals run` does with the suite (its flags win). */
export interface EnvironmentCampaign {
  /** Attempts per case × lane (default 1). */
  readonly attempts?: number;
  /** 0–3 (default 1): tries again only a retryable infrastructure failure. */
  readonly max_infrastructure_retries?: number;
  /** The campaign's cost ceiling in USD. */
  readonly max_cost_usd?: number;
  /** The most eval sessions at once (default: the number of cores). */
  readonly max_parallel?: number;
}

export interface EnvironmentConfig {
  readonly id: string;
  readonly sha256: string;
  readonly model: string;
  readonly driver: string;
  readonly description?: string;
  readonly lane?: EnvironmentLane;
  readonly limits?: EnvironmentLimits;
}

export interface Environment {
  readonly schema: typeof ENVIRONMENT_V1;
  readonly name: string;
  readonly store?: string;
  readonly cases: readonly EnvironmentCase[];
  readonly configs: readonly EnvironmentConfig[];
  readonly pricing?: PricingTable;
  readonly campaign?: EnvironmentCampaign;
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

/** The largest environment file read (an environment is a page of YAML; more is a mistake or an attack). */
export const ENVIRONMENT_MAX_BYTES = 4 * 1024 * 1024;

/** The most aliases a YAML environment may resolve (the yaml library's default bound, kept explicit). */
export const ENVIRONMENT_MAX_ALIASES = 100;

const YAML_EXPECTED = 'strict YAML (unique keys, no custom tags, acyclic anchors)';

/**
 * Parses YAML strictly: duplicate keys, unresolved (custom) tags and any warning are errors, and so
 * are more than ENVIRONMENT_MAX_ALIASES aliases, an anchor that contains an alias of itself (a cycle)
 * and nesting deeper than DEFAULT_MAX_JSON_DEPTH. Never throws: every failure is an issue.
 */
function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  // The yaml library loads only when an environment is read (CommonJS, so synchronously).
  const { parseDocument } = createRequire(import.meta.url)('yaml') as typeof Yaml;
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
        message:
          problem.code === 'DUPLICATE_KEY'
            ? `the key ${duplicateKeyAt(text, problem.pos[0])} appears twice in one mapping${problem.linePos === undefined ? '' : ` (the second at line ${problem.linePos[0].line})`}: keep one`
            : (problem.message.split('\n')[0] ?? problem.message).replace(/:$/, ''),
        path: '',
        expected: YAML_EXPECTED,
        received:
          problem.linePos === undefined
            ? problem.code
            : `line ${problem.linePos[0].line}, column ${problem.linePos[0].col}`,
      })),
    };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: ENVIRONMENT_MAX_ALIASES }) as unknown;
  } catch (error) {
    // The yaml library throws (a ReferenceError) past maxAliasCount or on an alias it cannot resolve.
    const message = error instanceof Error ? error.message : String(error);
    const tooMany = /alias count/i.test(message);
    return {
      ok: false,
      issues: [
        {
          code: tooMany ? 'yaml_alias_limit' : 'yaml_alias_unresolved',
          message: tooMany
            ? `the document resolves more than ${ENVIRONMENT_MAX_ALIASES} aliases`
            : `an alias cannot be resolved: ${message}`,
          path: '',
          expected: tooMany
            ? `at most ${ENVIRONMENT_MAX_ALIASES} aliases (write the values out)`
            : YAML_EXPECTED,
          received: tooMany ? `more than ${ENVIRONMENT_MAX_ALIASES} aliases` : message,
        },
      ],
    };
  }
  const shape = shapeIssue(value);
  return shape === null ? { ok: true, value } : { ok: false, issues: [shape] };
}

/**
 * The key the yaml library's DUPLICATE_KEY error points at (its offset is the key's first character),
 * quoted, its name only (never the value after it) and scrubbed of anything credential-shaped.
 */
function duplicateKeyAt(text: string, offset: number): string {
  const line = text.slice(offset).split(/\r?\n/, 1)[0] ?? '';
  const key = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:#]*?)\s*:(?:\s|$)/.exec(line)?.[1]?.trim();
  return key === undefined || key === '' ? 'here' : `'${scrubCredentials(key.slice(0, 80))}'`;
}

/** parseYaml, with anything the yaml library throws besides (a stack overflow on deep nesting) as an issue. */
function parseYamlSafely(text: string): { ok: true; value: unknown } | { ok: false; issues: Issue[] } {
  try {
    return parseYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      issues: [{ code: 'yaml_unparseable', message, path: '', expected: YAML_EXPECTED, received: message }],
    };
  }
}

/** A cycle (an anchor holding an alias of itself) or nesting past DEFAULT_MAX_JSON_DEPTH, or null. */
function shapeIssue(root: unknown): Issue | null {
  const holding = new Set<unknown>();
  const walk = (value: unknown, at: readonly (string | number)[]): Issue | null => {
    if (value === null || typeof value !== 'object') return null;
    if (holding.has(value))
      return {
        code: 'yaml_alias_cycle',
        message: 'an anchor contains an alias of itself (a value that holds itself has no JSON form)',
        path: pointer(...at),
        expected: YAML_EXPECTED,
        received: 'a self-referencing anchor',
      };
    if (at.length > DEFAULT_MAX_JSON_DEPTH)
      return {
        code: 'yaml_too_deep',
        message: `the document nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`,
        path: pointer(...at),
        expected: `at most ${DEFAULT_MAX_JSON_DEPTH} levels of nesting`,
        received: `more than ${DEFAULT_MAX_JSON_DEPTH} levels`,
      };
    holding.add(value);
    const entries: [string | number, unknown][] =
      value instanceof Map
        ? [...value.entries()].map(([key, item]) => [String(key), item])
        : Array.isArray(value)
          ? value.map((item, index) => [index, item])
          : Object.entries(value);
    for (const [key, item] of entries) {
      const issue = walk(item, [...at, key]);
      if (issue !== null) return issue;
    }
    holding.delete(value);
    return null;
  };
  return walk(root, []);
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
  environment.configs.forEach((config, index) => {
    const limits = config.limits;
    if (limits === undefined) return;
    const given = [limits.max_estimated_cost_usd, limits.max_estimated_cost_nanodollars].filter(
      (limit) => limit !== undefined,
    ).length;
    if (given !== 1)
      issues.push({
        code: 'environment_limits_cost',
        message: `config ${config.id}: the per-attempt cost limit is given ${given === 0 ? 'not at all' : 'twice'}`,
        path: pointer('configs', index, 'limits'),
        expected: 'exactly one of max_estimated_cost_usd, max_estimated_cost_nanodollars',
        received: given === 0 ? 'neither' : 'both',
      });
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

/**
 * The empty trace with `target` (`output.a.b`, else the content default `output.message`) holding
 * empty text, so a content check's own spec is read; a target of another form gets the empty trace.
 */
function traceHolding(target: unknown): Trace {
  const path = typeof target === 'string' ? /^output((?:\.[A-Za-z_][\w-]*)+)$/.exec(target) : null;
  if (path === null && target !== undefined) return EMPTY_TRACE;
  const names = path?.[1]?.slice(1).split('.') ?? ['message'];
  const output: Record<string, unknown> = {};
  let node = output;
  names.forEach((name, index) => {
    const next: Record<string, unknown> = {};
    node[name] = index === names.length - 1 ? '' : next;
    node = next;
  });
  return { ...EMPTY_TRACE, output };
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
    // A content check resolves its target before it reads its own spec (the Attest engine's order),
    // so on the empty trace a bad regex or check name behind an unresolved target went unseen: each
    // is tried again on a trace that holds its target.
    for (const assertion of assertions) {
      const first = results.find((result) => result.assertion_id === assertion.assertion_id);
      if (assertion.type !== 'content' || first === undefined || first.failure_class !== undefined) continue;
      const [again] = (await evaluateAssertions(traceHolding(assertion.spec.target), [assertion])).results;
      if (again?.failure_class !== undefined) results[results.indexOf(first)] = again;
    }
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

/**
 * Reads an environment file's bytes, at most ENVIRONMENT_MAX_BYTES; every failure (missing, a
 * directory, unreadable, too large) is the contract's coded document error naming the path.
 */
async function readEnvironmentBytes(path: string): Promise<Buffer> {
  const refuse = (code: string, message: string, expected: string, received: string): ContractError =>
    invalid(`${path} ${message}`, [{ code, message: `${path} ${message}`, path: '', expected, received }]);
  let handle;
  try {
    // Non-blocking, so a FIFO at the path is opened at once and refused below, never read.
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw refuse(
      'environment_unreadable',
      code === 'ENOENT' ? 'does not exist' : `cannot be opened (${code})`,
      'a readable evalbook.yaml / .json file (evals init writes one)',
      code,
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw refuse(
        'environment_not_a_file',
        'is not a regular file',
        'a regular evalbook.yaml / .json file',
        FILE_KIND_PHRASE[fileKindOf(stat)],
      );
    if (stat.size > ENVIRONMENT_MAX_BYTES)
      throw refuse(
        'environment_too_large',
        `is ${stat.size} bytes, over the ${ENVIRONMENT_MAX_BYTES}-byte limit of an environment`,
        `at most ${ENVIRONMENT_MAX_BYTES} bytes`,
        `${stat.size} bytes`,
      );
    // A buffer of the file's size and a byte more (not the limit's 4 MiB: a campaign reads the
    // environment at every try it records); a file that grew meanwhile is read on, in a buffer twice
    // the size, to at most a byte past the limit.
    let bytes = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > ENVIRONMENT_MAX_BYTES)
        throw refuse(
          'environment_too_large',
          `grew past the ${ENVIRONMENT_MAX_BYTES}-byte limit of an environment while being read`,
          `at most ${ENVIRONMENT_MAX_BYTES} bytes`,
          `more than ${ENVIRONMENT_MAX_BYTES} bytes`,
        );
      if (length === bytes.length) {
        const larger = Buffer.allocUnsafe(Math.min(bytes.length * 2, ENVIRONMENT_MAX_BYTES + 1));
        bytes.copy(larger, 0, 0, length);
        bytes = larger;
      }
    }
    return bytes.subarray(0, length);
  } catch (error) {
    if (error instanceof ContractError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw refuse('environment_unreadable', `cannot be read (${code})`, 'a readable file', code);
  } finally {
    await handle.close();
  }
}

/** YAML text of the bytes: UTF-8 only (no silent replacement characters), a leading BOM allowed as YAML allows. */
function yamlText(bytes: Buffer): { ok: true; text: string } | { ok: false; issues: Issue[] } {
  if (!isUtf8(bytes))
    return {
      ok: false,
      issues: [
        {
          code: 'text_not_utf8',
          message: 'the file is not valid UTF-8',
          path: '',
          expected: 'UTF-8 text',
          received: 'bytes that are not UTF-8',
        },
      ],
    };
  return { ok: true, text: bytes.toString('utf8') };
}

/**
 * A suite document's value, read as an environment is: `.json` strict JSON, anything else strict
 * YAML (UTF-8, unique keys, no custom tags, bounded aliases), at most ENVIRONMENT_MAX_BYTES. Every
 * failure is the contract's coded document error naming the path.
 */
async function readSuiteDocument(path: string): Promise<unknown> {
  const bytes = await readEnvironmentBytes(path);
  const json = /\.json$/i.test(path);
  let parsed: { ok: true; value: unknown } | { ok: false; issues: Issue[] };
  if (json) parsed = readJsonText(bytes, { maxBytes: ENVIRONMENT_MAX_BYTES });
  else {
    const text = yamlText(bytes);
    parsed = text.ok ? parseYamlSafely(text.text) : text;
  }
  if (!parsed.ok) throw invalid(`${path} is not a strict ${json ? 'JSON' : 'YAML'} document`, parsed.issues);
  return parsed.value;
}

/**
 * The sha256 an environment lists for a case or config definition kept in a file (`evals digest
 * --canonical`): the RFC 8785 canonical digest of the document's value, the file read as the
 * environment loader reads its own (YAML or JSON by the same parser), so `case.yaml` and the same
 * definition as `case.json` have one digest — the one `input.caseSha256` / `configSha256` must carry.
 */
export async function definitionDigest(path: string): Promise<string> {
  return canonicalDigest(await readSuiteDocument(path));
}

/**
 * Loads `evalbook.yaml` / `.yml` / `.json`. Every failure (the file, its text, its YAML or JSON, the
 * schema, the checks) is the contract's coded `paperclip_contract_document_invalid` (exit 2), never
 * another throw.
 */
export async function loadEnvironment(path: string): Promise<Environment> {
  const value = await readSuiteDocument(path);
  let environment: Environment;
  try {
    environment = parseEnvironment(value);
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

/** The static threshold of a check's drift bar (the environment's, else the engine's 0.8). */
export type DriftThresholdOf = (caseId: string, checkId: string) => number | undefined;

/**
 * Each check's static drift threshold as the environment sets it: the check's own `driftThreshold`,
 * else the environment's `report.driftThreshold` (undefined: the engine's default).
 */
export function driftThresholdsOf(environment: Environment | undefined): DriftThresholdOf {
  return (caseId, checkId) =>
    caseOf(environment, caseId)?.checks?.find((check) => check.id === checkId)?.driftThreshold ??
    environment?.report?.driftThreshold;
}

/**
 * What `evals init` writes: a commented starter environment that loads as is and that `evals run`
 * runs as is against the reference runner release this repository builds (its deterministic
 * stand-in provider and its pinned, priced model: no network, no key); its comments say what to
 * change for a real release.
 */
export function starterEnvironment(): string {
  return `# Evalbook environment (paperclip-evals/environment/v1).
# The eval suite as data: cases, configs, a versioned pricing table, budgets and report settings.
# Validated against schemas/evals/environment-v1.schema.json; duplicate keys and custom tags are refused.
#
# As written it runs against the reference runner release this repository builds (the README's
# demo: packages/reference-runner), whose eval-session runs the deterministic stand-in provider
# (paperclip_deterministic, model paperclip-deterministic-1: no network, no API key, priced below):
#   evals run --release-dir RELEASE --env evalbook.yaml --campaign first-1 --out campaign.json
# For a real release, change: each config's model, driver and lane.provider to a provider the
# release's eval-session runs (e.g. codex) and its key with \`evals run --pass-env NAME\`; the
# pricing table to your models' rates; each case's prompt (drop \`session\`: only the stand-in
# reads it); every sha256 to the digest of your own definitions.
schema: paperclip-evals/environment/v1
name: my-suite

# Default store; \`evals ingest --store\` wins. SQLite is a single file.
store: sqlite:.evalbook/evalbook.sqlite

# Each case: its id, the sha256 of its definition (\`evals ingest\` refuses an attempt whose case
# is not listed here or whose input.caseSha256 differs: not of this suite; --keep-foreign stores
# such attempts apart) and the checks it expects a verdict for. A check
# without \`type\` is reported by the runner (the reference runner reports result-proposed and
# objective-satisfied); one with \`type\` and \`spec\` is written in the checks
# engine's vocabulary (docs/checks-engine.md) and evaluated by \`evals ingest\` over each attempt.
cases:
  - id: case_example
    # \`evals run\` sends this prompt (and \`session\`, an object, as is) in each eval-session request.
    prompt: Summarise the incident review in the brief document.
    # Read by the reference runner's stand-in only: what its agent does (succeed, deny_tool, incomplete, …).
    session:
      behaviour: succeed
    sha256: sha256:0000000000000000000000000000000000000000000000000000000000000000
    checks:
      - id: result-proposed
        description: the agent proposed a structured result
      - id: objective-satisfied
        description: the result claims the objective is met
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
    # A real release: your model (and its price below), its driver and lane.provider.
    model: paperclip-deterministic-1
    driver: paperclip-deterministic
    # \`evals run\`: the eval-session provider (model: the config's unless given; driver: derived by
    # the eval-session unless given). A lane with enabled: false runs only when named (--lanes).
    # Upstream's providers need more, sent as its eval-session reads them: claude_managed a
    # managed_profile, aws_agentcore an agent_core_profile, acpx an acpx_agent (pi, copilot, hermes
    # with candidate_profile and expected_acpx_profile), opencode an opencode_version: see
    # docs/campaigns.md ("A lane's per-provider fields").
    lane:
      provider: paperclip_deterministic
      enabled: true
    # Per attempt: the eval-session stops a turn after turn_timeout_ms, and fails a completed turn
    # over max_agent_turns or the cost limit (max_estimated_cost_usd, or _nanodollars).
    limits:
      turn_timeout_ms: 120000
      max_agent_turns: 8
      max_estimated_cost_usd: 0.5

# \`evals run\`: attempts per case × lane; a retryable infrastructure failure is tried again at most
# max_infrastructure_retries (0–3) times; no attempt starts once the spend reaches max_cost_usd; at
# most max_parallel sessions at once. See docs/campaigns.md.
campaign:
  attempts: 3
  max_infrastructure_retries: 1
  max_cost_usd: 10
  max_parallel: 2

# USD per million tokens per model and token kind (at most ${PRICE_DECIMALS} decimals). Estimates
# record this version; history is never repriced. A model missing here is "unpriced", never free.
# paperclip-deterministic-1's rates are the reference runner's pinned list; put your models' here.
pricing:
  version: "2026-11-01"
  models:
    paperclip-deterministic-1:
      inputPerMillionUsd: 2.5
      outputPerMillionUsd: 10

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
