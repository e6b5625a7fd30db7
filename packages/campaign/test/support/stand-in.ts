// Test support: a stand-in eval-session bin in a scratch folder (the script, the bundle templates
// it fills in, the spawns/ folder it records each start in), a suite environment whose cases say
// what the stand-in does, and a joined release to execute with (no qualification needed).
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { digestFile } from '@paperclip-evals/node';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { packageBuildMetadata } from '@paperclip-evals/test-kit/fake-release';
import { QUALIFIED_RECEIPT } from '@paperclip-evals/test-kit/qualification-record';

import type { JoinedRelease } from '../../src/execute.ts';

const SCRIPT = fileURLToPath(new URL('./stand-in-eval-session.mjs', import.meta.url));
const IDS = {
  runId: 'RUNIDTEMPLATE0',
  caseId: 'CASEIDTEMPLATE0',
  configId: 'CONFIGIDTEMPLATE0',
  attemptId: 'ATTEMPTIDTEMPLATE0',
};

export interface StandIn {
  readonly dir: string;
  readonly binPath: string;
  readonly sha256: string;
  /** Attempt ids of every session started so far (one entry per start). */
  spawns(): Promise<string[]>;
  /** One entry per start so far (attempt id and pid), to tell later starts from earlier ones. */
  starts(): Promise<Set<string>>;
  /** What each start so far received: its arguments after the script, and its request as parsed. */
  received(): Promise<{ args: string[]; request: Record<string, unknown> }[]>;
  remove(): Promise<void>;
}

export async function createStandIn(label: string): Promise<StandIn> {
  const dir = await mkdtemp(join(tmpdir(), `campaign-${label}-`));
  const binDir = join(dir, 'bin');
  await mkdir(binDir);
  const binPath = join(binDir, 'eval-session.mjs');
  await copyFile(SCRIPT, binPath);
  const template = (state: 'succeeded' | 'failed', costMicros: number | null): string => {
    const bundle = syntheticAttempt({ ...IDS, runTerminalState: state, costMicros, deniedCalls: 0 });
    // A failed turn of the agent's own making (a behaviour failure), not the runner's: recorded as
    // the reference runner's bin records it (upstream's attempt failure code provider_turn_failed).
    const failure = bundle.failure as { classification: string; code: string } | null;
    if (failure !== null)
      Object.assign(failure, { classification: 'provider_turn', code: 'provider_turn_failed' });
    return `${JSON.stringify(bundle)}\n`;
  };
  const first = syntheticAttempt(IDS) as {
    input: { caseSha256: string; configSha256: string };
    runner: { binary: { sha256: string } };
  };
  await writeFile(
    join(binDir, 'template-ids.json'),
    JSON.stringify({
      ...IDS,
      caseSha256: first.input.caseSha256,
      configSha256: first.input.configSha256,
      runnerdSha256: first.runner.binary.sha256,
    }),
  );
  await writeFile(join(binDir, 'build-metadata.json'), JSON.stringify(packageBuildMetadata()));
  for (const state of ['succeeded', 'failed'] as const) {
    await writeFile(join(binDir, `template-${state}.json`), template(state, 1000));
    await writeFile(join(binDir, `template-${state}-unpriced.json`), template(state, null));
  }
  return {
    dir,
    binPath,
    sha256: (await digestFile(binPath)).digest,
    spawns: async () =>
      (await readdir(join(binDir, 'spawns')).catch(() => [] as string[])).map((name) =>
        name.replace(/\.[0-9]+$/, ''),
      ),
    starts: async () => new Set(await readdir(join(binDir, 'spawns')).catch(() => [] as string[])),
    received: async () => {
      const names = await readdir(join(binDir, 'spawns')).catch(() => [] as string[]);
      return Promise.all(
        names.map(
          async (name) =>
            JSON.parse(await readFile(join(binDir, 'spawns', name), 'utf8')) as {
              args: string[];
              request: Record<string, unknown>;
            },
        ),
      );
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A joined release for executeCampaign: the stand-in as its eval-session (runnerd is not run by it). */
export function standInRelease(standIn: StandIn): JoinedRelease {
  return {
    packageName: '@paperclipai/paperclip-runner',
    packageVersion: '0.4.0',
    runnerdPath: standIn.binPath,
    runnerdSha256: standIn.sha256,
    receipt: { ...QUALIFIED_RECEIPT, driverVersion: '1.0.0' },
    evalSession: { command: process.execPath, args: [standIn.binPath] },
    buildMetadata: packageBuildMetadata(),
  };
}

export interface SuiteCase {
  readonly id: string;
  readonly behaviour: string;
  readonly costMicros?: number | null;
  readonly delayMs?: number;
  /** A change to the success artifact that makes evals validate refuse it (the stand-in's MUTATIONS). */
  readonly mutation?: string;
  /** needs_env / leak_env: the variable the session expects in its environment. */
  readonly needsEnv?: string;
}

/** A suite environment (JSON) whose cases carry the stand-in's behaviour in their session. */
export function suiteEnvironment(
  cases: readonly SuiteCase[],
  options: {
    /** `lane`: fields of the config's lane besides enabled (a provider, its profile fields); `model`: the config's. */
    readonly lanes?: readonly {
      id: string;
      enabled?: boolean;
      model?: string;
      lane?: Readonly<Record<string, unknown>>;
    }[];
    readonly attempts?: number;
    readonly retries?: number;
    readonly maxCostUsd?: number;
    readonly turnTimeoutMs?: number;
  } = {},
): Record<string, unknown> {
  const lanes = options.lanes ?? [{ id: 'lane_a' }];
  return {
    schema: 'paperclip-evals/environment/v1',
    name: 'campaign-test',
    cases: cases.map((entry, index) => ({
      id: entry.id,
      sha256: `sha256:${index.toString(16).padStart(64, 'a')}`,
      prompt: `Do ${entry.id}.`,
      session: {
        behaviour: entry.behaviour,
        ...(entry.costMicros === undefined ? {} : { costMicros: entry.costMicros }),
        ...(entry.delayMs === undefined ? {} : { delayMs: entry.delayMs }),
        ...(entry.mutation === undefined ? {} : { mutation: entry.mutation }),
        ...(entry.needsEnv === undefined ? {} : { needsEnv: entry.needsEnv }),
      },
    })),
    configs: lanes.map((lane, index) => ({
      id: lane.id,
      sha256: `sha256:${index.toString(16).padStart(64, 'b')}`,
      model: lane.model ?? 'model-x',
      driver: 'deterministic',
      lane: {
        provider: 'paperclip_deterministic',
        ...lane.lane,
        ...(lane.enabled === undefined ? {} : { enabled: lane.enabled }),
      },
      limits: {
        turn_timeout_ms: options.turnTimeoutMs ?? 200,
        max_agent_turns: 4,
        max_estimated_cost_usd: 0.5,
      },
    })),
    campaign: {
      attempts: options.attempts ?? 1,
      max_infrastructure_retries: options.retries ?? 1,
      ...(options.maxCostUsd === undefined ? {} : { max_cost_usd: options.maxCostUsd }),
    },
  };
}
