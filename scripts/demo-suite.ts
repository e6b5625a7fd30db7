// The demo's eval suite as data: four cases × two configs × three attempts, each attempt one
// paperclip-runner/eval-session-request/v1 for the package's `paperclip-runner-eval-session` bin
// (deterministic provider, fixed seed; the demo adds the qualified runnerd's path and digest). Cases and
// configs are digested (sha256 of their definition's RFC 8785 canonical JSON) into the requests and
// into the Evalbook environment the demo writes (`demoEnvironmentYaml`; a checked-in copy lives in
// fixtures/environments/demo/evalbook.yaml and a test keeps the two equal).
import { canonicalDigest } from '../packages/contract/dist/index.js';

export const DEMO_RUN_ID = 'run_demo_2026_11_30';
export const DEMO_ATTEMPTS_PER_PAIR = 3;
/** Each session's limits: generous, so only an unpriceable model meets the budget stop. */
const DEMO_LIMITS = { turnTimeoutMs: 60_000, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 };
const DRIVER = 'paperclip-deterministic';
const PRICING_VERSION = '2026-11-01';
const DEMO_BUDGETS = { perRunUsd: 1, perConfigUsd: 0.5 } as const;

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
  /** What the deterministic driver's scripted agent does (DETERMINISTIC_BEHAVIOURS in the runner). */
  readonly behaviour: 'succeed' | 'deny_tool' | 'fail' | 'incomplete';
}

export interface DemoConfig {
  readonly id: string;
  readonly description: string;
  readonly model: string;
  /**
   * The deterministic driver's own ledger price list (micro-USD per million tokens): what the
   * artifact keeps apart as legacyLedgerCostNanodollars; null: it keeps none.
   */
  readonly providerPricing: {
    readonly currency: 'USD';
    readonly inputMicrosPerMillionTokens: number;
    readonly outputMicrosPerMillionTokens: number;
  } | null;
  /**
   * Whether the runner has a pinned price for the model. Without one its budget stop cannot bound
   * the cost of a completed turn: provider_budget_coverage_unknown, exit 2 (an infrastructure
   * outcome, stored as such).
   */
  readonly runnerPriced: boolean;
  /** The environment's pricing table entry (USD per million tokens); null: the model is not listed. */
  readonly tablePrice: { readonly inputPerMillionUsd: number; readonly outputPerMillionUsd: number } | null;
}

export const DEMO_CASES: readonly DemoCase[] = [
  {
    id: 'case_incident_summary',
    description: 'summarise the incident review into the brief (succeeds)',
    prompt: 'Summarise the quarterly incident review in the brief document.',
    behaviour: 'succeed',
  },
  {
    id: 'case_publish_approval',
    description: 'approve publishing the summary without the approver claim (a governed call is denied)',
    prompt: 'Approve publishing the incident summary.',
    behaviour: 'deny_tool',
  },
  {
    id: 'case_stale_rewrite',
    description: 'rewrite the brief from a stale revision (the write is refused and the run fails)',
    prompt: "Rewrite the brief from last week's copy.",
    behaviour: 'fail',
  },
  {
    id: 'case_long_review',
    description: 'summarise a long review (the transcript writer stops at its cap: incomplete transcript)',
    prompt: 'Summarise the long incident review and keep the full transcript.',
    behaviour: 'incomplete',
  },
];

export const DEMO_CONFIGS: readonly DemoConfig[] = [
  {
    id: 'config_priced',
    description: 'a model the runner prices from its pinned list (estimated; its ledger figure kept apart)',
    model: 'paperclip-deterministic-1',
    providerPricing: {
      currency: 'USD',
      inputMicrosPerMillionTokens: 3_000_000,
      outputMicrosPerMillionTokens: 15_000_000,
    },
    runnerPriced: true,
    tablePrice: { inputPerMillionUsd: 3, outputPerMillionUsd: 15 },
  },
  {
    id: 'config_unpriced',
    description:
      'a preview model nobody has a price for: the budget stop cannot bound it (provider_budget_coverage_unknown), never $0',
    model: 'paperclip-deterministic-preview',
    providerPricing: null,
    runnerPriced: false,
    tablePrice: null,
  },
];

/** sha256 of the case definition's canonical JSON: what the environment and every attempt name. */
export const caseSha256 = (entry: DemoCase): string =>
  canonicalDigest({ id: entry.id, prompt: entry.prompt, behaviour: entry.behaviour, checks: CHECKS });

export const configSha256 = (config: DemoConfig): string =>
  canonicalDigest({
    id: config.id,
    driver: DRIVER,
    model: config.model,
    providerPricing: config.providerPricing,
  });

/** One attempt: its paperclip-runner/eval-session-request/v1, without runnerd (the demo adds it). */
export interface DemoAttempt {
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  /** 2 when the budget stop cannot bound it (an unpriced model, a completed turn), else 0. */
  readonly sessionExit: 0 | 2;
  readonly request: Readonly<Record<string, unknown>>;
}

/** Every attempt of the suite, in a fixed order (case, then config, then attempt number). */
export function demoAttempts(): DemoAttempt[] {
  const attempts: DemoAttempt[] = [];
  for (const entry of DEMO_CASES)
    for (const config of DEMO_CONFIGS)
      for (let n = 1; n <= DEMO_ATTEMPTS_PER_PAIR; n++) {
        const attemptId = `attempt_${entry.id.replace(/^case_/, '')}_${config.id.replace(/^config_/, '')}_${n}`;
        attempts.push({
          caseId: entry.id,
          configId: config.id,
          attemptId,
          // The budget stop judges completed turns only (as upstream's): `fail` ends its turn failed.
          sessionExit: !config.runnerPriced && entry.behaviour !== 'fail' ? 2 : 0,
          request: {
            schema: 'paperclip-runner/eval-session-request/v1',
            attemptId,
            prompt: entry.prompt,
            model: config.model,
            provider: 'paperclip_deterministic',
            limits: DEMO_LIMITS,
            session: {
              runId: DEMO_RUN_ID,
              seed: `demo/${entry.id}/${config.id}/${n}`,
              behaviour: entry.behaviour,
              pricing: config.providerPricing,
            },
            evalCase: {
              caseId: entry.id,
              caseSha256: caseSha256(entry),
              configId: config.id,
              configSha256: configSha256(config),
            },
          },
        });
      }
  return attempts;
}

/** The Evalbook environment of the suite (evalbook.yaml), commented for a reader. */
export function demoEnvironmentYaml(): string {
  const lines = [
    '# Evalbook environment of `pnpm demo` (generated by scripts/demo-suite.ts; do not edit by hand).',
    '# Each sha256 is the digest of the case or config definition the demo sends to paperclip-runner-eval-session;',
    '# an attempt naming another case, config or digest is refused by `evals ingest --env` (not of this suite).',
    'schema: paperclip-evals/environment/v1',
    'name: paperclip-demo',
    '',
    'cases:',
  ];
  for (const entry of DEMO_CASES) {
    lines.push(
      `  - id: ${entry.id}`,
      `    sha256: ${caseSha256(entry)}`,
      `    description: ${JSON.stringify(entry.description)}`,
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
    );
  lines.push(
    '',
    '# USD per million tokens. A model missing here whose provider sends no receipt is unpriced.',
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
