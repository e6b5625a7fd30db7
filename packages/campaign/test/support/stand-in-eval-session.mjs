#!/usr/bin/env node
// A stand-in paperclip-runner-eval-session for the campaign tests, obeying the bin contract of
// docs/upstream-runner-facts.md §5 (--request R --output O; exit 0 with a success artifact, 2 with
// a failure artifact stating infrastructureFailure {class, category, retryable}, 1 before any
// session). What it does is the request's session.behaviour. Its native-execution bundle comes
// from templates written by stand-in.ts (the repo's synthetic generator), with the request's ids
// and digests put in. It records each start in spawns/ beside it, so a test can count sessions;
// each record holds the start's arguments after the script and its request, as received. It takes
// upstream's --candidate-profile and --expected-acpx-profile flags (each once, with a value).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const requestPath = flag('--request');
const outputPath = flag('--output');
// Upstream's bin: flags in pairs, each known and once, every value present and not a flag.
const FLAGS = new Set(['--request', '--output', '--candidate-profile', '--expected-acpx-profile']);
const pairs = args.filter((_, at) => at % 2 === 0);
if (
  requestPath === undefined ||
  outputPath === undefined ||
  args.length % 2 !== 0 ||
  pairs.some((name) => !FLAGS.has(name)) ||
  new Set(pairs).size !== pairs.length ||
  args.some((value, at) => at % 2 === 1 && value.startsWith('--'))
) {
  process.stderr.write(`bad arguments: ${args.join(' ')}\n`);
  process.exit(1);
}
const requestText = readFileSync(resolve(requestPath), 'utf8');
const request = JSON.parse(requestText);
mkdirSync(join(here, 'spawns'), { recursive: true });
writeFileSync(
  join(here, 'spawns', `${request.attemptId}.${process.pid}`),
  JSON.stringify({ args, request: JSON.parse(requestText) }),
);
const behaviour = request.session?.behaviour ?? 'succeed';
const micros = request.session?.costMicros === undefined ? 1000 : request.session.costMicros;
const nano = micros === null ? null : micros * 1000;
const usage = {
  agentTurns: 1,
  providerRequests: 1,
  inputTokens: 100,
  outputTokens: 50,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  // No provider receipt (a direct eval-session's usual case): the cost is the runner's estimate.
  providerReportedCostNanodollars: null,
  providerReportedCostProvenance: 'unavailable',
  estimatedCostNanodollars: nano,
  pricingVersion: nano === null ? null : 'stand-in-2026-01',
  ratesUsdPerMillionTokens: nano === null ? null : { input: 5, cachedInput: 0.5, output: 10 },
  costCoverage: nano === null ? 'unpriced' : 'estimated',
  legacyLedgerCostNanodollars: null,
};
const runnerdSha256 = behaviour === 'wrong_runnerd' ? `sha256:${'e'.repeat(64)}` : request.runnerd.sha256;
const common = {
  schema: 'paperclip-runner/eval-session-artifact/v1',
  attemptId: request.attemptId,
  // The qualified package's build metadata (stand-in.ts writes it beside the script).
  build: JSON.parse(readFileSync(join(here, 'build-metadata.json'), 'utf8')),
  // wrong_runnerd: the artifact and its bundle agree on another runnerd than the request's (valid
  // for evals validate; ingest refuses it: runnerd_not_qualified).
  runnerd: { path: '[withheld]', sha256: runnerdSha256 },
  requestedModel: request.model,
  provider: request.provider,
  // The provider's one driver (upstream's table; the deterministic stand-in's otherwise).
  driver:
    {
      codex: 'codex_app_server',
      opencode: 'opencode_server',
      claude_managed: 'claude_managed_agents_api',
      aws_agentcore: 'aws_agentcore_harness_api',
      acpx: 'acpx_runtime',
    }[request.provider] ?? 'paperclip_deterministic_harness',
  providerVersion: null,
  timing: { startedAt: new Date().toISOString(), finishedAt: new Date().toISOString(), durationMs: 1 },
};
const write = (artifact) => writeFileSync(resolve(outputPath), `${JSON.stringify(artifact, null, 2)}\n`);
const bundle = (state, failure) => {
  let text = readFileSync(join(here, `template-${state}${micros === null ? '-unpriced' : ''}.json`), 'utf8');
  const template = JSON.parse(readFileSync(join(here, 'template-ids.json'), 'utf8'));
  const swap = (from, to) => {
    text = text.split(from).join(to);
  };
  swap(template.caseSha256, request.evalCase.caseSha256);
  swap(template.configSha256, request.evalCase.configSha256);
  // The bundle names the runnerd the request named (ingest checks it is the qualified one).
  swap(template.runnerdSha256, runnerdSha256);
  swap(template.attemptId, request.attemptId);
  swap(template.runId, request.session.runId);
  swap(template.caseId, request.evalCase.caseId);
  swap(template.configId, request.evalCase.configId);
  // The bundle tells the artifact's story (evals validate checks they agree): its package version,
  // its usage figures as the artifact states them.
  const parsed = JSON.parse(text);
  parsed.runner.package.version = common.build.package.version;
  // A failure artifact's bundle records the artifact's failure (evals validate checks they agree).
  if (failure !== undefined) parsed.failure = failure;
  parsed.usage = {
    ...parsed.usage,
    cost: null,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    providerReportedCostNanodollars: usage.providerReportedCostNanodollars,
    providerReportedCostProvenance: usage.providerReportedCostProvenance,
    estimatedCostNanodollars: usage.estimatedCostNanodollars,
    ...(usage.pricingVersion === null
      ? {}
      : { pricingVersion: usage.pricingVersion, ratesUsdPerMillionTokens: usage.ratesUsdPerMillionTokens }),
    costCoverage: usage.costCoverage,
    legacyLedgerCostNanodollars: usage.legacyLedgerCostNanodollars,
  };
  text = `${JSON.stringify(parsed)}\n`;
  const path = join(dirname(resolve(outputPath)), 'native-execution.json');
  writeFileSync(path, text);
  return {
    path: 'native-execution.json',
    sha256: `sha256:${createHash('sha256').update(text).digest('hex')}`,
    byteSize: Buffer.byteLength(text),
  };
};
const succeed = (state) => {
  const artifact = {
    ...common,
    providerSessionId: 's',
    turn: { turnId: 't', status: state === 'succeeded' ? 'completed' : 'failed', assistantText: '' },
    snapshot: {},
    usage,
    nativeExecution: bundle(state),
  };
  // session.mutation: one change that makes `evals validate` refuse the artifact (the mutation table
  // of execute.test.ts); the session still exits 0 as if it had succeeded.
  const mutation = MUTATIONS[request.session?.mutation ?? 'none'];
  if (mutation === undefined) {
    process.stderr.write(`unknown mutation ${request.session.mutation}\n`);
    process.exit(1);
  }
  const text = mutation(artifact);
  writeFileSync(
    resolve(outputPath),
    typeof text === 'string' ? text : `${JSON.stringify(artifact, null, 2)}\n`,
  );
  process.exit(0);
};
/** Rewrites the bundle beside the artifact and names its new bytes (only the bundle is then wrong). */
const rewriteBundle = (artifact, change) => {
  const path = join(dirname(resolve(outputPath)), artifact.nativeExecution.path);
  const bundleValue = JSON.parse(readFileSync(path, 'utf8'));
  change(bundleValue);
  const text = `${JSON.stringify(bundleValue)}\n`;
  writeFileSync(path, text);
  artifact.nativeExecution.sha256 = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  artifact.nativeExecution.byteSize = Buffer.byteLength(text);
};
const MUTATIONS = {
  none: () => undefined,
  // Upstream's success shape: the session ran, but its artifact references no native bundle.
  no_native_bundle: (artifact) => {
    delete artifact.nativeExecution;
  },
  // Upstream's aggregate's artifact for a matrix cell that retained none (valid for evals validate),
  // written by a session: only an orchestrator writes it, so the campaign refuses it.
  missing_cell: (artifact) =>
    `${JSON.stringify({
      schema: artifact.schema,
      attemptId: artifact.attemptId,
      createdAt: artifact.timing.startedAt,
      requestedModel: artifact.requestedModel,
      provider: 'codex',
      driver: 'codex_app_server',
      providerVersion: null,
      usage: {},
      turn: { status: 'failed' },
      infrastructureFailure: {
        class: 'ci_cell_artifact_missing',
        category: 'campaign_orchestration',
        retryable: false,
      },
    })}\n`,
  build_without_package: (artifact) => {
    delete artifact.build.package;
  },
  turn_without_text: (artifact) => {
    delete artifact.turn.assistantText;
  },
  driver_of_another_provider: (artifact) => {
    artifact.driver = 'codex_app_server';
  },
  runnerd_path_written: (artifact) => {
    artifact.runnerd.path = '/opt/paperclip-runnerd';
  },
  timing_out_of_order: (artifact) => {
    artifact.timing.finishedAt = '2000-01-01T00:00:00.000Z';
  },
  usage_provenance_mismatch: (artifact) => {
    artifact.usage.providerReportedCostProvenance = 'legacy_runner_usage_ledger';
  },
  success_without_snapshot: (artifact) => {
    delete artifact.snapshot;
  },
  usage_not_the_bundles: (artifact) => {
    artifact.usage.inputTokens += 1;
  },
  bundle_digest_mismatch: (artifact) => {
    artifact.nativeExecution.sha256 = `sha256:${'0'.repeat(64)}`;
  },
  bundle_size_mismatch: (artifact) => {
    artifact.nativeExecution.byteSize += 1;
  },
  bundle_missing: (artifact) => {
    artifact.nativeExecution.path = 'absent.json';
  },
  bundle_outside_the_folder: (artifact) => {
    artifact.nativeExecution.path = '../request.json';
  },
  bundle_of_another_package: (artifact) => {
    rewriteBundle(artifact, (value) => {
      value.runner.package.version = '9.9.9';
    });
  },
  bundle_invalid: (artifact) => {
    rewriteBundle(artifact, (value) => {
      delete value.terminal;
    });
  },
  bundle_of_another_attempt: (artifact) => {
    rewriteBundle(artifact, (value) => {
      value.identity.attemptId = `${value.identity.attemptId}-other`;
    });
  },
  duplicate_key: (artifact) => {
    const text = JSON.stringify(artifact, null, 2);
    return `{\n  "attemptId": ${JSON.stringify(artifact.attemptId)},${text.slice(1)}\n`;
  },
};
const infrastructure = (failureClass, category, retryable, message) => {
  write({
    ...common,
    infrastructureError: message,
    infrastructureFailure: { class: failureClass, category, retryable, diagnostics: {} },
    providerSessionId: null,
    usage,
  });
  process.stderr.write(`paperclip-runner-eval-session: ${failureClass}: ${message}\n`);
  process.exit(2);
};
/** A failure artifact that references its bundle, as the reference runner writes when a session ran. */
const infrastructureWithBundle = (failureClass, category, retryable, message, bundleMessage = message) => {
  const classification = category === 'provider_budget' ? 'budget' : 'infrastructure';
  write({
    ...common,
    infrastructureError: message,
    infrastructureFailure: { class: failureClass, category, retryable, diagnostics: {} },
    providerSessionId: 's',
    snapshot: {},
    usage,
    nativeExecution: bundle('failed', { classification, code: failureClass, message: bundleMessage }),
  });
  process.exit(2);
};
const retry = /-r[0-9]+$/.test(request.attemptId);
switch (behaviour) {
  case 'succeed':
    succeed('succeeded');
    break;
  case 'fail':
    succeed('failed');
    break;
  case 'wrong_runnerd':
    succeed('succeeded');
    break;
  case 'await_go': {
    // Succeeds once a file `go` appears beside the request (a test puts something in the ledger first).
    const go = join(dirname(resolve(requestPath)), 'go');
    const poll = setInterval(() => {
      if (existsSync(go)) {
        clearInterval(poll);
        succeed('succeeded');
      }
    }, 20);
    break;
  }
  case 'needs_env': {
    // Succeeds only when its environment is exactly the variable session.needsEnv names (set):
    // nothing inherited, the passed one there. Says which names it saw otherwise (never a value).
    const names = Object.keys(process.env).sort();
    if (names.length === 1 && names[0] === request.session.needsEnv && process.env[names[0]] !== '')
      succeed('succeeded');
    else {
      process.stderr.write(`environment: ${names.join(', ') || 'empty'}\n`);
      process.exit(1);
    }
    break;
  }
  case 'leak_env':
    // A session that prints the passed variable's value in its error (evals must mask it).
    process.stderr.write(`provider refused the key ${process.env[request.session.needsEnv] ?? ''}\n`);
    process.exit(1);
    break;
  case 'slow':
    setTimeout(() => succeed('succeeded'), request.session.delayMs ?? 300);
    break;
  case 'flaky':
    if (retry) succeed('succeeded');
    else infrastructure('provider_turn_timeout', 'provider_lifecycle', true, 'the provider turn timed out');
    break;
  case 'budget_with_bundle':
    infrastructureWithBundle('provider_budget_reached', 'provider_budget', false, 'turn limit reached');
    break;
  case 'leak_env_failure':
    // A failure artifact (with its bundle) whose error names the passed variable's value: evals must
    // keep it masked in the artifact it stores.
    infrastructureWithBundle(
      'runner_infrastructure_failure',
      'runner_infrastructure',
      true,
      `runner exited: the provider refused the key ${process.env[request.session.needsEnv] ?? ''}`,
      // (A bundle's bytes are bound by its digest: a value in them could not be masked.)
      'runner exited',
    );
    break;
  case 'timeout_with_bundle':
    infrastructureWithBundle(
      'provider_turn_timeout',
      'provider_lifecycle',
      true,
      'the provider turn timed out',
    );
    break;
  case 'always_retryable':
    infrastructure('runner_infrastructure_failure', 'runner_infrastructure', true, 'runner exited');
    break;
  case 'nonretryable':
    infrastructure(
      'eval_orchestration_failure',
      'eval_orchestration',
      false,
      'the provider profile is invalid',
    );
    break;
  case 'accounting_unpriced':
    // Upstream's newer variant: a completed turn beside accountingError + accountingFailure, exit 2.
    // Its usage still carries a figure: the coverage is unknown all the same.
    write({
      ...common,
      providerSessionId: 's',
      turn: { turnId: 't', status: 'completed', assistantText: '' },
      snapshot: {},
      usage,
      accountingError: 'budget cost coverage is unavailable',
      accountingFailure: {
        class: 'provider_budget_coverage_unknown',
        category: 'provider_budget',
        retryable: false,
        diagnostics: {},
      },
    });
    process.exit(2);
    break;
  case 'hang':
    setInterval(() => undefined, 1000);
    break;
  case 'garbage':
    writeFileSync(resolve(outputPath), 'not json {');
    process.exit(0);
    break;
  case 'silent':
    process.exit(0);
    break;
  case 'refuse':
    process.stderr.write('runnerd digest mismatch\n');
    process.exit(1);
    break;
  case 'die_SIGKILL':
  case 'die_SIGTERM':
    // Dies of the signal on its own (nobody of the campaign sent it): a crash.
    process.kill(process.pid, behaviour.slice('die_'.length));
    setInterval(() => undefined, 1000);
    break;
  default:
    process.stderr.write(`unknown behaviour ${behaviour}\n`);
    process.exit(1);
}
