// Policy replay throughput: 1,000,000 events through the real `evals policy evaluate` process pipe,
// driven by the real consumer (replaySessions from the built packages/policy). Reports rows/s
// (target at least 100,000; the median of --rounds runs, each listed) and the consumer's RSS sampled
// every 100,000 rows (target: flat, the spread after the first sample under 50 MB). Events are
// generated lazily, session by session, so the consumer never holds the corpus; each session
// threads its state from successful replies. Before each round the same protocol work is measured
// in one process with no pipe (the producer's EvaluateSession handles each row frame, JSON.parse
// reads each reply): the baseline the round's rate is reported against.
//
// Run: `npx tsc -b packages/cli && npx tsx scripts/bench/policy-bench.ts [--events 1000000]
// [--sessions 10000] [--processes 1] [--sessions-per-process 256] [--rounds 5] [--json]`; with
// `node --expose-gc --import tsx scripts/bench/policy-bench.ts` it also samples the live heap after a
// full GC (the leak check: RSS alone includes garbage not yet collected). Targets are reported, never
// enforced; exits non-zero only on bad arguments or a failed replay job.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { bundleOf, denyRm, writeRate } from '@paperclip-evals/test-kit/policy-bundles';
import { loadAverage } from './cli-run.ts';

import type * as Policy from '../../packages/policy/src/index.ts';

export const TARGET_ROWS_PER_SECOND = 100_000;
export const RSS_SPREAD_TARGET_BYTES = 50e6;
/** The pipe at least as fast as the same protocol work in one process (rows/s ratio). */
const RATIO_TARGET = 1.0;
const SAMPLE_EVERY_ROWS = 100_000;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(REPO_ROOT, 'packages/cli/bin/evals.js');
const POLICY_MODULE = pathToFileURL(join(REPO_ROOT, 'packages/policy/dist/index.js')).href;

const BUNDLE = bundleOf(
  denyRm,
  {
    kind: 't1_predicate_tree',
    id: 'ask-secrets',
    version: 1,
    body: {
      when: { field: 'tool_input.path', glob: '**/.env' },
      verdict: 'ask',
      reason: 'touches secrets',
    },
  },
  writeRate,
  {
    kind: 't2_spend_limit',
    id: 'spend-cap',
    version: 1,
    body: { limit: 5_000_000, verdict: 'deny', reason: 'spend cap', on_evict: 'reset' },
  },
  {
    kind: 't2_run_length',
    id: 'loop-guard',
    version: 1,
    body: { max_run: 5, verdict: 'ask', reason: 'a loop', on_evict: 'reset' },
  },
);

const TOOLS = [
  { tool_name: 'Read', tool_input: { path: 'src/index.ts' } },
  { tool_name: 'Write', tool_input: { path: 'src/out.ts', content: 'export {};' } },
  { tool_name: 'Bash', tool_input: { command: 'npm test' } },
  { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } },
  { tool_name: 'Read', tool_input: { path: 'config/.env' } },
  { tool_name: 'Grep', tool_input: { pattern: 'TODO' } },
];

interface RoundResult {
  readonly seconds: number;
  readonly rowsPerSecond: number;
  /** The same rows' protocol work in one process without a pipe, measured just before. */
  readonly inProcessRowsPerSecond: number;
  /** The baseline's CPU per row (both sides' protocol work, one process). */
  readonly inProcessCpuMicrosPerRow: number;
  /** The consumer's own CPU (user + system) per row, which is what a loaded machine cannot hide. */
  readonly consumerCpuMicrosPerRow: number;
  /** The producer processes' CPU per row (from /proc/self/stat cutime + cstime; null off Linux). */
  readonly producerCpuMicrosPerRow: number | null;
  readonly rowErrors: number;
  readonly verdicts: Record<string, number>;
  readonly rssSamplesBytes: number[];
  readonly rssSpreadBytes: number;
  /** Live heap after a full GC at each sample (only with `node --expose-gc`): a leak shows as growth here. */
  readonly heapAfterGcSamplesBytes: number[];
}

interface BenchResult {
  readonly events: number;
  readonly sessions: number;
  readonly processes: number;
  readonly sessionsPerProcess: number;
  readonly rounds: readonly RoundResult[];
  /** Medians over the rounds. */
  readonly rowsPerSecond: number;
  readonly inProcessRowsPerSecond: number;
  /** Median of the per-round rows/s ratios (pipe ÷ in-process baseline of the same round); target ≥ 1. */
  readonly ratioToInProcess: number;
  /** The lowest and highest per-round ratio, and in how many rounds it was at least 1. */
  readonly ratioSpread: readonly [number, number];
  readonly ratioRoundsMet: number;
  /** Median of per-round CPU per row (consumer + producers) ÷ the baseline's CPU per row. */
  readonly cpuRatioToInProcess: number | null;
  readonly load: { readonly before: string; readonly after: string };
  readonly rssSpreadBytes: number;
  readonly targets: {
    readonly rowsPerSecond: boolean;
    readonly ratioToInProcess: boolean;
    readonly rssFlat: boolean;
  };
}

const args = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    sessions: { type: 'string', default: '10000' },
    processes: { type: 'string', default: '1' },
    'sessions-per-process': { type: 'string', default: '256' },
    rounds: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false },
  },
});
const count = (name: string, value: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0)
    throw new Error(`--${name} must be a positive integer, got ${value}`);
  return parsed;
};
const events = count('events', args.values.events);
const sessions = count('sessions', args.values.sessions);
const processes = count('processes', args.values.processes);
const sessionsPerProcess = count('sessions-per-process', args.values['sessions-per-process']);
const rounds = count('rounds', args.values.rounds);
/** The in-process baseline runs on a slice of the corpus: its rate, not its length, is compared. */
const BASELINE_EVENTS = Math.min(events, 200_000);

/** Each tool's members as JSON text, written once: the generator only fills in ids per row. */
const TOOL_MEMBERS = TOOLS.map((tool) => JSON.stringify(tool).slice(1, -1));

/**
 * Sessions made on demand: `total` rows spread over `sessions` sessions, 1 s apart in each. Each
 * event is the JSON text of {event_type, session_id, tool_use_id, tool_name, tool_input,
 * spend_delta}, built from strings so the generator costs the consumer little.
 */
function* generateSessions(total: number): Generator<Policy.ReplaySession<null>> {
  const perSession = Math.ceil(total / sessions);
  for (let index = 0, left = total; left > 0; index++, left -= perSession) {
    const length = Math.min(perSession, left);
    yield {
      key: `session-${index}`,
      events: (function* () {
        const head = `{"event_type":"pre_tool_use","session_id":"session-${index}","tool_use_id":"call-`;
        for (let step = 0; step < length; step++) {
          const tool = TOOL_MEMBERS[(index + step) % TOOL_MEMBERS.length] ?? '';
          const event = `${head}${step}",${tool},"spend_delta":1000}`;
          yield { ref: null, event, nowMs: 1_757_000_000_000n + BigInt(step) * 1000n };
        }
      })(),
    };
  }
}

/**
 * CPU time of this process's reaped children in µs (Linux: cutime + cstime of /proc/self/stat, in
 * clock ticks of 10 ms), or null where that file is missing. The producers are reaped when the
 * replay resolves, so the difference across it is their CPU.
 */
function childrenCpuMicros(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return null;
  }
  // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10_000;
}

/**
 * The baseline: the same sessions' rows handled in this process by the producer's EvaluateSession,
 * each reply read with JSON.parse and its state_out threaded into the session's next row — the
 * protocol work of both sides on one core, with no pipe, no second process and no overlap.
 */
function inProcessBaseline(
  policy: typeof Policy,
  initialState: string,
): { rowsPerSecond: number; cpuMicrosPerRow: number } {
  const producer = new policy.EvaluateSession(() => undefined);
  producer.handle({ kind: 'line', text: `{"type":"bundle","bundle":${JSON.stringify(BUNDLE)}}` });
  let rows = 0;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (const session of generateSessions(BASELINE_EVENTS)) {
    let state = initialState;
    for (const event of session.events) {
      const text = `{"type":"row","id":"r${rows++}","event":${event.event},"state_in":${state},"now_ms":${event.nowMs}}`;
      const reply = producer.handle({ kind: 'line', text }) ?? '';
      const fields = JSON.parse(reply) as { decision?: unknown };
      if (fields.decision !== undefined) state = reply.slice(reply.lastIndexOf(',"state_out":') + 13, -1);
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    rowsPerSecond: Math.round(rows / (Number(process.hrtime.bigint() - started) / 1e9)),
    cpuMicrosPerRow: Math.round(((cpu.user + cpu.system) / rows) * 10) / 10,
  };
}

async function round(policy: typeof Policy, initialState: string): Promise<RoundResult> {
  const baseline = inProcessBaseline(policy, initialState);
  const verdicts: Record<string, number> = {};
  const rssSamplesBytes: number[] = [];
  const heapAfterGcSamplesBytes: number[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  let rows = 0;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const childrenBefore = childrenCpuMicros();
  const summary = await policy.replaySessions({
    command: { file: process.execPath, args: [CLI, 'policy', 'evaluate'] },
    bundle: JSON.stringify(BUNDLE),
    initialState,
    sessions: generateSessions(events),
    processes,
    sessionsPerProcess,
    onReply: (_session, _event, reply) => {
      const verdict = reply.ok ? String(reply.decision.verdict) : `error ${reply.code}`;
      verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
      if (++rows % SAMPLE_EVERY_ROWS !== 0) return;
      rssSamplesBytes.push(process.memoryUsage().rss);
      if (gc !== undefined) {
        gc();
        heapAfterGcSamplesBytes.push(process.memoryUsage().heapUsed);
      }
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const childrenAfter = childrenCpuMicros();
  const producerCpuMicros =
    childrenBefore === null || childrenAfter === null ? null : childrenAfter - childrenBefore;
  const steady = rssSamplesBytes.slice(1);
  return {
    seconds: Math.round(seconds * 100) / 100,
    rowsPerSecond: Math.round(summary.rows / seconds),
    inProcessRowsPerSecond: baseline.rowsPerSecond,
    inProcessCpuMicrosPerRow: baseline.cpuMicrosPerRow,
    consumerCpuMicrosPerRow: Math.round(((cpu.user + cpu.system) / summary.rows) * 10) / 10,
    producerCpuMicrosPerRow:
      producerCpuMicros === null ? null : Math.round((producerCpuMicros / summary.rows) * 10) / 10,
    rowErrors: summary.rowErrors,
    verdicts,
    rssSamplesBytes,
    rssSpreadBytes: steady.length === 0 ? 0 : Math.max(...steady) - Math.min(...steady),
    heapAfterGcSamplesBytes,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function run(): Promise<BenchResult> {
  const policy = (await import(POLICY_MODULE)) as typeof Policy;
  const load = policy.loadBundle(BUNDLE);
  if (!load.ok) throw new Error(load.message);
  const initialState = policy.stateToJSON(policy.zeroedRegisters(load.bundle.layout));
  const results: RoundResult[] = [];
  const before = loadAverage();
  for (let index = 0; index < rounds; index++) results.push(await round(policy, initialState));
  const after = loadAverage();
  const ratios = results.map((result) => result.rowsPerSecond / result.inProcessRowsPerSecond);
  const cpuRatios = results.flatMap((result) =>
    result.producerCpuMicrosPerRow === null
      ? []
      : [(result.consumerCpuMicrosPerRow + result.producerCpuMicrosPerRow) / result.inProcessCpuMicrosPerRow],
  );
  const ratioToInProcess = Math.round(median(ratios) * 100) / 100;
  const rowsPerSecond = Math.round(median(results.map((result) => result.rowsPerSecond)));
  const rssSpreadBytes = Math.max(...results.map((result) => result.rssSpreadBytes));
  return {
    events,
    sessions,
    processes,
    sessionsPerProcess,
    rounds: results,
    rowsPerSecond,
    inProcessRowsPerSecond: Math.round(median(results.map((result) => result.inProcessRowsPerSecond))),
    ratioToInProcess,
    ratioSpread: [Math.min(...ratios), Math.max(...ratios)],
    ratioRoundsMet: ratios.filter((ratio) => ratio >= RATIO_TARGET).length,
    cpuRatioToInProcess: cpuRatios.length === 0 ? null : Math.round(median(cpuRatios) * 100) / 100,
    load: { before, after },
    rssSpreadBytes,
    targets: {
      rowsPerSecond: rowsPerSecond >= TARGET_ROWS_PER_SECOND,
      ratioToInProcess: ratioToInProcess >= RATIO_TARGET,
      rssFlat: rssSpreadBytes < RSS_SPREAD_TARGET_BYTES,
    },
  };
}

const result = await run();
if (args.values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
  const lines = [
    `policy replay: ${result.events} events, ${result.sessions} sessions, ${result.processes} producer process(es), ${result.sessionsPerProcess} sessions in flight each`,
  ];
  result.rounds.forEach((each, index) => {
    lines.push(
      `  round ${index + 1}: ${each.seconds} s · ${each.rowsPerSecond} rows/s · in-process baseline ${each.inProcessRowsPerSecond} rows/s, ${each.inProcessCpuMicrosPerRow} µs/row CPU (${(each.rowsPerSecond / each.inProcessRowsPerSecond).toFixed(2)}×)`,
      `    consumer CPU ${each.consumerCpuMicrosPerRow} µs/row · producer CPU ${each.producerCpuMicrosPerRow ?? 'n/a'} µs/row · row errors ${each.rowErrors} · verdicts ${JSON.stringify(each.verdicts)}`,
      `    consumer RSS every ${SAMPLE_EVERY_ROWS} rows: ${each.rssSamplesBytes.map(mb).join(', ')}`,
      each.heapAfterGcSamplesBytes.length === 0
        ? '    heap after GC: not sampled (run node with --expose-gc to see it)'
        : `    heap after GC at each sample: ${each.heapAfterGcSamplesBytes.map(mb).join(', ')}`,
    );
  });
  lines.push(
    `  load average ${result.load.before} before, ${result.load.after} after`,
    `  median ${result.rowsPerSecond} rows/s (target ≥ ${TARGET_ROWS_PER_SECOND}: ${result.targets.rowsPerSecond ? 'met' : 'missed'}) · ${result.ratioToInProcess}× the in-process baseline (${result.inProcessRowsPerSecond} rows/s; rounds ${result.ratioSpread.map((ratio) => ratio.toFixed(2)).join('–')}, ${result.ratioRoundsMet}/${result.rounds.length} ≥ ${RATIO_TARGET}×: ${result.targets.ratioToInProcess ? 'met' : 'missed'}) · CPU per row ${result.cpuRatioToInProcess ?? 'n/a'}× the baseline's`,
    `  largest RSS spread after a round's first sample: ${mb(result.rssSpreadBytes)} (target < ${mb(RSS_SPREAD_TARGET_BYTES)}: ${result.targets.rssFlat ? 'met' : 'missed'})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}
