// The demo's eval suite as data: four cases × two configs × three attempts, each attempt one
// deterministic `paperclip-runnerd eval-session` request (fixed seed and start time). Cases and
// configs are digested (sha256 of their definition's RFC 8785 canonical JSON) into the requests and
// into the Evalbook environment the demo writes (`demoEnvironmentYaml`; a checked-in copy lives in
// fixtures/environments/demo/evalbook.yaml and a test keeps the two equal).
import { canonicalDigest } from '../packages/contract/dist/index.js';

export const DEMO_RUN_ID = 'run_demo_2026_11_30';
export const DEMO_ATTEMPTS_PER_PAIR = 3;
/** Attempt k of the suite starts k minutes after this (no clock is read). */
const DEMO_STARTED_AT_MS = Date.parse('2026-11-30T09:00:00.000Z');
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
  /** The provider's price list (micro-USD per million tokens); null: it sends no receipt. */
  readonly providerPricing: {
    readonly currency: 'USD';
    readonly inputMicrosPerMillionTokens: number;
    readonly outputMicrosPerMillionTokens: number;
  } | null;
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
    description: 'a model the provider bills with a receipt, also listed in the pricing table',
    model: 'paperclip-deterministic-1',
    providerPricing: {
      currency: 'USD',
      inputMicrosPerMillionTokens: 3_000_000,
      outputMicrosPerMillionTokens: 15_000_000,
    },
    tablePrice: { inputPerMillionUsd: 3, outputPerMillionUsd: 15 },
  },
  {
    id: 'config_unpriced',
    description: 'a preview model: no provider receipt and not in the pricing table (unpriced, never $0)',
    model: 'paperclip-deterministic-preview',
    providerPricing: null,
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

/** One attempt: the eval-session request runnerd reads (paperclip-runner/eval-session-request/v1). */
export interface DemoAttempt {
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
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
          request: {
            schema: 'paperclip-runner/eval-session-request/v1',
            runId: DEMO_RUN_ID,
            caseId: entry.id,
            configId: config.id,
            attemptId,
            caseSha256: caseSha256(entry),
            configSha256: configSha256(config),
            seed: `demo/${entry.id}/${config.id}/${n}`,
            startedAt: new Date(DEMO_STARTED_AT_MS + attempts.length * 60_000).toISOString(),
            behaviour: entry.behaviour,
            prompt: entry.prompt,
            model: config.model,
            pricing: config.providerPricing,
          },
        });
      }
  return attempts;
}

/** The Evalbook environment of the suite (evalbook.yaml), commented for a reader. */
export function demoEnvironmentYaml(): string {
  const lines = [
    '# Evalbook environment of `pnpm demo` (generated by scripts/demo-suite.ts; do not edit by hand).',
    '# Each sha256 is the digest of the case or config definition the demo sends to paperclip-runnerd;',
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
