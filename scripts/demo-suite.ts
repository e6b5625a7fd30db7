// The demo's eval suite as data: four cases × two lanes × three attempts that `evals run` runs
// through the release's `paperclip-runner-eval-session` bin (the deterministic stand-in provider,
// no network, no spend), plus a disabled lane left out unless named. The two lanes run different
// models, and each case's `session.behaviourByModel` says what the stand-in's agent does for a model
// (docs/eval-session.md), so one case gets worse on the candidate (a regression) and one gets better
// (an improvement) — deterministically, every run. (The stand-in's `fail` is left out: the runner
// classifies that failure as its own, so a campaign counts it an infrastructure failure.) `demoEnvironmentYaml` writes the suite as the
// Evalbook environment (cases with prompt and session, configs with lane and limits, the campaign
// settings); a checked-in copy lives in fixtures/environments/demo/evalbook.yaml and a test keeps
// the two equal. Case and config digests are the sha256 of their definition's RFC 8785 canonical JSON.
import { canonicalDigest } from '../packages/contract/dist/index.js';

export const DEMO_ATTEMPTS_PER_PAIR = 3;
/** What the stand-in's agent can do (the reference runner's DETERMINISTIC_BEHAVIOURS the demo uses). */
export type DemoBehaviour = 'succeed' | 'deny_tool' | 'incomplete';
const PROVIDER = 'paperclip_deterministic';
const DRIVER = 'paperclip-deterministic';
const PRICING_VERSION = '2026-11-01';
const DEMO_BUDGETS = { perRunUsd: 1, perConfigUsd: 0.5 } as const;
/** Each session's limits: generous, so no priced attempt meets the runner's budget stop. */
const DEMO_LIMITS = { turn_timeout_ms: 60_000, max_agent_turns: 50, max_estimated_cost_usd: 0.1 } as const;
/** The campaign: every attempt 3 times, one retry for a retryable failure, 2 sessions at once, a $1 ceiling. */
const DEMO_CAMPAIGN = {
  attempts: DEMO_ATTEMPTS_PER_PAIR,
  max_infrastructure_retries: 1,
  max_cost_usd: 1,
  max_parallel: 2,
} as const;

/** The observation ids the runner's eval-session records for every attempt. */
const CHECKS = [
  { id: 'result-proposed', description: 'the agent proposed a structured result' },
  { id: 'objective-satisfied', description: 'the result claims the objective is met' },
] as const;

/**
 * Checks Evals evaluates itself at ingest, in the checks engine's vocabulary, over each attempt's
 * trace (the runner never sees them, so they are not part of the case digest).
 */
const ENGINE_CHECKS = [
  {
    id: 'reads-the-source',
    description: 'the agent read the source document',
    type: 'trace',
    spec: '{ check: required_tools, tools: [read_document] }',
  },
  {
    id: 'no-loops',
    description: 'read_document called at most three times (a loop re-reading the source)',
    type: 'trace',
    spec: '{ check: loop_detection, tool: read_document, max_repetitions: 3 }',
  },
  {
    id: 'bounded-steps',
    description: 'at most six tool calls (soft: shown, does not unsolve)',
    type: 'constraint',
    spec: '{ field: steps.length, operator: lte, value: 6, soft: true }',
  },
] as const;

export interface DemoCase {
  readonly id: string;
  readonly description: string;
  readonly prompt: string;
  /** What the stand-in's agent does on any model not in `behaviourByModel`. */
  readonly behaviour: DemoBehaviour;
  /** Per model: what it does instead (the request's session.behaviourByModel). */
  readonly behaviourByModel: Readonly<Record<string, DemoBehaviour>>;
}

export interface DemoConfig {
  readonly id: string;
  readonly description: string;
  readonly model: string;
  /** A disabled lane runs only when named (`evals run --lanes config_preview`). */
  readonly enabled: boolean;
  /** Whether the runner has a pinned price for the model (without one a completed turn is unpriced). */
  readonly runnerPriced: boolean;
  /** The environment's pricing table entry (USD per million tokens); null: the model is not listed. */
  readonly tablePrice: { readonly inputPerMillionUsd: number; readonly outputPerMillionUsd: number } | null;
}

export const DEMO_CASES: readonly DemoCase[] = [
  {
    id: 'case_incident_summary',
    description: 'summarise the incident review into the brief (both models succeed)',
    prompt: 'Summarise the quarterly incident review in the brief document.',
    behaviour: 'succeed',
    behaviourByModel: {},
  },
  {
    id: 'case_publish_approval',
    description:
      'approve publishing the summary: the baseline calls the governed tool without the approver claim (denied); the candidate asks first (an improvement)',
    prompt: 'Approve publishing the incident summary.',
    behaviour: 'deny_tool',
    behaviourByModel: { 'paperclip-deterministic-2': 'succeed' },
  },
  {
    id: 'case_brief_rewrite',
    description:
      'rewrite the brief: the baseline does; the candidate also tries to publish it without the approver claim (denied: a regression)',
    prompt: 'Rewrite the brief from the current revision.',
    behaviour: 'succeed',
    behaviourByModel: { 'paperclip-deterministic-2': 'deny_tool' },
  },
  {
    id: 'case_long_review',
    description: 'summarise a long review (the transcript writer stops at its cap: incomplete transcript)',
    prompt: 'Summarise the long incident review and keep the full transcript.',
    behaviour: 'incomplete',
    behaviourByModel: {},
  },
];

export const DEMO_CONFIGS: readonly DemoConfig[] = [
  {
    id: 'config_baseline',
    description: 'the model in production (priced from the runner’s pinned list)',
    model: 'paperclip-deterministic-1',
    enabled: true,
    runnerPriced: true,
    tablePrice: { inputPerMillionUsd: 2.5, outputPerMillionUsd: 10 },
  },
  {
    id: 'config_candidate',
    description: 'the cheaper candidate model: better at one case, worse at another',
    model: 'paperclip-deterministic-2',
    enabled: true,
    runnerPriced: true,
    tablePrice: { inputPerMillionUsd: 1, outputPerMillionUsd: 4 },
  },
  {
    id: 'config_preview',
    description:
      'a preview model nobody has a price for (disabled: run it with --lanes config_preview; each completed turn is provider_budget_coverage_unknown, never $0)',
    model: 'paperclip-deterministic-preview',
    enabled: false,
    runnerPriced: false,
    tablePrice: null,
  },
];

export const BASELINE = 'config_baseline';
export const CANDIDATE = 'config_candidate';

/** The case's session object, as the environment states it and each request sends it. */
export const caseSession = (entry: DemoCase): Record<string, unknown> => ({
  behaviour: entry.behaviour,
  ...(Object.keys(entry.behaviourByModel).length === 0 ? {} : { behaviourByModel: entry.behaviourByModel }),
});

/** sha256 of the case definition's canonical JSON: what the environment and every attempt name. */
export const caseSha256 = (entry: DemoCase): string =>
  canonicalDigest({ id: entry.id, prompt: entry.prompt, session: caseSession(entry), checks: CHECKS });

export const configSha256 = (config: DemoConfig): string =>
  canonicalDigest({ id: config.id, provider: PROVIDER, driver: DRIVER, model: config.model });

/** What the stand-in's agent does for this case on this config's model. */
export function behaviourOn(entry: DemoCase, config: DemoConfig): DemoBehaviour {
  return entry.behaviourByModel[config.model] ?? entry.behaviour;
}

/** The Evalbook environment of the suite (evalbook.yaml), commented for a reader. */
export function demoEnvironmentYaml(): string {
  const lines = [
    '# Evalbook environment of `pnpm demo` (generated by scripts/demo-suite.ts; do not edit by hand).',
    "# `evals run` sends each case × enabled lane × attempt to the release's paperclip-runner-eval-session;",
    '# each sha256 is the digest of the case or config definition, and an attempt naming another case,',
    '# config or digest is refused at ingest (not of this suite).',
    'schema: paperclip-evals/environment/v1',
    'name: paperclip-demo',
    '',
    'cases:',
  ];
  for (const entry of DEMO_CASES) {
    const byModel = Object.entries(entry.behaviourByModel);
    lines.push(
      `  - id: ${entry.id}`,
      `    sha256: ${caseSha256(entry)}`,
      `    description: ${JSON.stringify(entry.description)}`,
      `    prompt: ${JSON.stringify(entry.prompt)}`,
      '    # The deterministic stand-in provider: what its agent does, per model where it differs.',
      '    session:',
      `      behaviour: ${entry.behaviour}`,
      ...(byModel.length === 0
        ? []
        : [
            '      behaviourByModel:',
            ...byModel.map(([model, behaviour]) => `        ${model}: ${behaviour}`),
          ]),
      '    checks:',
    );
    for (const check of CHECKS)
      lines.push(`      - id: ${check.id}`, `        description: ${JSON.stringify(check.description)}`);
    for (const check of ENGINE_CHECKS)
      lines.push(
        `      - id: ${check.id}`,
        `        description: ${JSON.stringify(check.description)}`,
        `        type: ${check.type}`,
        `        spec: ${check.spec}`,
      );
  }
  lines.push('', 'configs:');
  for (const config of DEMO_CONFIGS)
    lines.push(
      `  - id: ${config.id}`,
      `    sha256: ${configSha256(config)}`,
      `    model: ${config.model}`,
      `    driver: ${DRIVER}`,
      `    description: ${JSON.stringify(config.description)}`,
      '    lane:',
      `      provider: ${PROVIDER}`,
      ...(config.enabled ? [] : ['      enabled: false']),
      '    limits:',
      `      turn_timeout_ms: ${DEMO_LIMITS.turn_timeout_ms}`,
      `      max_agent_turns: ${DEMO_LIMITS.max_agent_turns}`,
      `      max_estimated_cost_usd: ${DEMO_LIMITS.max_estimated_cost_usd}`,
    );
  lines.push(
    '',
    '# `evals run`: attempts per case × lane, retries of a retryable infrastructure failure, the cost',
    '# ceiling (no attempt starts at it; an unknown cost stops scheduling too) and sessions at once.',
    'campaign:',
    ...Object.entries(DEMO_CAMPAIGN).map(([key, value]) => `  ${key}: ${value}`),
    '',
    '# USD per million tokens. A model missing here whose runner sends no estimate is unpriced.',
    'pricing:',
    `  version: "${PRICING_VERSION}"`,
    '  models:',
  );
  for (const config of DEMO_CONFIGS) {
    if (config.tablePrice === null) continue;
    lines.push(
      `    ${config.model}:`,
      `      inputPerMillionUsd: ${config.tablePrice.inputPerMillionUsd}`,
      `      outputPerMillionUsd: ${config.tablePrice.outputPerMillionUsd}`,
    );
  }
  lines.push(
    '',
    '# USD; `evals report --env` checks them. Unpriced attempts leave a budget unproven, never within.',
    'budgets:',
    `  perRunUsd: ${DEMO_BUDGETS.perRunUsd}`,
    `  perConfigUsd: ${DEMO_BUDGETS.perConfigUsd}`,
    '',
    'report:',
    '  title: Paperclip demo suite',
    '  denominator: all_attempts',
    '',
  );
  return lines.join('\n');
}
