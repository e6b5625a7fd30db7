// `npx tsx scripts/bench/campaign-bench.ts [--attempts N] [--parallel P] [--json]`: the campaign's
// scheduling overhead per attempt. The same no-op eval-session (a Node script that writes a
// non-retryable failure artifact evals validate accepts and exits 2, so there is no native bundle and nothing is retried)
// runs N times twice: spawned directly, P at a time, each with its request written first; and
// through executeCampaign (plan, a ledger lookup per attempt for resume, the request, the process
// group, reading and classifying the artifact, the try's synthesized artifact ingested into the
// ledger, the budget check), P at a time. It prints both wall times,
// the overhead per attempt and the ratio against the 1.2× target — reported, never enforced.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { executeCampaign, planCampaign } from '../../packages/campaign/dist/index.js';
import { loadEnvironment } from '../../packages/evalbook/dist/index.js';
import { packageBuildMetadata } from '../../packages/reference-runner/dist/build-info.js';

const TARGET_RATIO = 1.2;
const args = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    attempts: { type: 'string', default: '1000' },
    parallel: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
  strict: true,
}).values;
const attempts = Number(args.attempts);
const parallel = Number(args.parallel);
if (!Number.isSafeInteger(attempts) || attempts < 1 || !Number.isSafeInteger(parallel) || parallel < 1) {
  process.stderr.write('--attempts and --parallel take positive whole numbers\n');
  process.exit(2);
}

const NOOP = `import { readFileSync, writeFileSync } from 'node:fs';
const a = process.argv.slice(2);
const request = JSON.parse(readFileSync(a[a.indexOf('--request') + 1], 'utf8'));
const now = new Date().toISOString();
// A failure artifact evals validate accepts (the campaign reads it with the same parser).
writeFileSync(a[a.indexOf('--output') + 1], JSON.stringify({ schema: 'paperclip-runner/eval-session-artifact/v1', attemptId: request.attemptId, build: ${JSON.stringify(packageBuildMetadata())}, runnerd: { path: '[withheld]', sha256: request.runnerd?.sha256 ?? 'sha256:' + '0'.repeat(64) }, requestedModel: request.model ?? 'noop', provider: request.provider ?? 'paperclip_deterministic', driver: 'paperclip_deterministic_harness', providerVersion: null, providerSessionId: null, timing: { startedAt: now, finishedAt: now, durationMs: 0 }, infrastructureError: 'no-op', infrastructureFailure: { class: 'eval_orchestration_failure', category: 'eval_orchestration', retryable: false, diagnostics: {} } }));
process.exit(2);
`;

const dir = await mkdtemp(join(tmpdir(), 'campaign-bench-'));
try {
  const bin = join(dir, 'noop-eval-session.mjs');
  await writeFile(bin, NOOP);

  const runOne = (requestPath: string, outputPath: string): Promise<void> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, '--request', requestPath, '--output', outputPath], {
        env: {},
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      });
      child.on('close', () => {
        resolve();
      });
    });
  const directDir = join(dir, 'direct');
  await mkdir(directDir);
  let next = 0;
  const directStart = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let index = next++; index < attempts; index = next++) {
        const requestPath = join(directDir, `${index}.request.json`);
        await writeFile(requestPath, JSON.stringify({ attemptId: `a${index}` }));
        await runOne(requestPath, join(directDir, `${index}.artifact.json`));
      }
    }),
  );
  const directMs = performance.now() - directStart;

  const cases = 10;
  const environmentPath = join(dir, 'evalbook.json');
  await writeFile(
    environmentPath,
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'bench',
      cases: Array.from({ length: cases }, (_, index) => ({
        id: `case_${index}`,
        sha256: `sha256:${String(index).padStart(64, '0')}`,
        prompt: 'Do nothing.',
      })),
      configs: [
        {
          id: 'lane_noop',
          sha256: `sha256:${'1'.repeat(64)}`,
          model: 'noop',
          driver: 'noop',
          lane: { provider: 'paperclip_deterministic' },
          limits: { turn_timeout_ms: 60_000, max_agent_turns: 1, max_estimated_cost_nanodollars: 1 },
        },
      ],
      campaign: { attempts: Math.ceil(attempts / cases), max_infrastructure_retries: 0 },
    }),
  );
  const environment = await loadEnvironment(environmentPath);
  const plan = planCampaign(environment, { campaignId: 'bench' });
  const sliced = { ...plan, attempts: plan.attempts.slice(0, attempts) };
  const campaignStart = performance.now();
  const result = await executeCampaign({
    plan: sliced,
    shard: null,
    release: {
      packageName: 'noop',
      packageVersion: '0.0.0',
      runnerdPath: bin,
      runnerdSha256: `sha256:${'0'.repeat(64)}`,
      receipt: {
        schema: 'paperclip-runner/evals-integration/v1',
        consumer: 'bench',
        packageVersion: '0.0.0',
        runnerdPackageVersion: '0.0.0',
        negotiatedPrpVersion: 1,
        nativeExecution: 'paperclip-runner/native-execution/v1',
        catalogSha256: `sha256:${'0'.repeat(64)}`,
        driverKind: 'noop',
        driverVersion: '0',
      },
      evalSession: { command: process.execPath, args: [bin] },
      // What each try's synthesized artifact states (every no-op try is recorded in the ledger).
      buildMetadata: packageBuildMetadata() as unknown as Record<string, unknown>,
    },
    environment,
    environmentPath,
    storeUrl: `sqlite:${join(dir, 'bench.sqlite')}`,
    workDir: join(dir, 'campaign'),
    maxParallel: parallel,
  });
  const campaignMs = performance.now() - campaignStart;
  const wrong = result.attempts.filter(
    (attempt) => attempt.infrastructureFailure?.class !== 'eval_orchestration_failure',
  );
  if (wrong.length > 0) throw new Error(`${wrong.length} attempts were not the no-op's failure`);
  const figures = {
    attempts,
    parallel,
    directMs: Math.round(directMs),
    campaignMs: Math.round(campaignMs),
    directPerAttemptMs: +(directMs / attempts).toFixed(2),
    campaignPerAttemptMs: +(campaignMs / attempts).toFixed(2),
    overheadPerAttemptMs: +((campaignMs - directMs) / attempts).toFixed(2),
    ratio: +(campaignMs / directMs).toFixed(3),
    target: TARGET_RATIO,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(figures)}\n`);
  else
    process.stdout.write(
      [
        `campaign scheduling: ${attempts} no-op eval-sessions, ${parallel} at a time (built packages)`,
        `  spawned directly   ${figures.directMs} ms (${figures.directPerAttemptMs} ms per attempt)`,
        `  executeCampaign    ${figures.campaignMs} ms (${figures.campaignPerAttemptMs} ms per attempt)`,
        `  overhead           ${figures.overheadPerAttemptMs} ms per attempt · ${figures.ratio}× (target ≤ ${TARGET_RATIO}×: ${figures.ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`,
        '',
      ].join('\n'),
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}
