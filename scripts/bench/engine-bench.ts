// `npx tsx scripts/bench/engine-bench.ts [--json]`: latency of the checks engine over its real stdio
// transport. It spawns the BUILT CLI (`packages/cli/bin/evals.js engine --stdio`), initializes, and
// sends evaluate_batch requests one at a time — 20 deterministic assertions (layers 1–4) over a
// 1,000-step trace — timing each from the write of the request line to the read of its response.
// After a warm-up, it prints p50 / p99 / mean latency and requests per second. The p50 < 5 ms target
// is reported, never enforced: this is a measurement, not a test. It exits non-zero only on bad
// arguments or if a reply is not the expected verdicts.
//
// Flags: --requests N (timed requests, default 1000), --warmup N (default 100), --json.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
const TARGET_P50_MS = 5;
const STEPS = 1_000;

const args = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    requests: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
  },
  strict: true,
});
const requests = Number(args.values.requests);
const warmup = Number(args.values.warmup);
if (!Number.isSafeInteger(requests) || requests < 1 || !Number.isSafeInteger(warmup) || warmup < 0) {
  process.stderr.write('engine-bench: --requests must be ≥ 1 and --warmup ≥ 0\n');
  process.exit(2);
}

/** A 1,000-step trace: an LLM call, then lookups, a retrieval every 10 steps, a refund at the end. */
function benchTrace(): unknown {
  const steps = Array.from({ length: STEPS }, (_, index) => {
    if (index === 0)
      return {
        type: 'llm_call',
        name: 'plan',
        args: { prompt: 'Refund ORD-123' },
        result: { completion: 'Look it up.' },
        metadata: { duration_ms: 900 },
      };
    if (index === STEPS - 1)
      return {
        type: 'tool_call',
        name: 'process_refund',
        args: { order_id: 'ORD-123', amount: 89.99 },
        result: { refund_id: 'RFD-001' },
      };
    if (index % 10 === 0)
      return {
        type: 'retrieval',
        name: 'policy_search',
        args: { query: `policy ${index}` },
        result: { documents: [{ id: `doc-${index}`, score: 0.9 }] },
      };
    return {
      type: 'tool_call',
      name: `lookup_${index % 7}`,
      args: { order_id: 'ORD-123', page: index },
      result: { status: 'delivered', amount: 89.99, page: index },
    };
  });
  return {
    schema_version: 1,
    trace_id: 'trc_bench',
    agent_id: 'bench-agent',
    input: { user_message: 'I want a refund for order ORD-123' },
    steps,
    output: {
      message: 'Your refund of $89.99 has been processed. Refund ID: RFD-001.',
      structured: { refund_id: 'RFD-001', confidence: 0.95 },
    },
    metadata: { total_tokens: 52_000, cost_usd: 0.41, latency_ms: 98_000, model: 'gpt-4.1' },
  };
}

/** 20 deterministic assertions, all passing on benchTrace(), spread over layers 1–4. */
const ASSERTIONS = [
  {
    type: 'schema',
    spec: {
      target: 'output.structured',
      schema: {
        type: 'object',
        required: ['refund_id', 'confidence'],
        properties: { confidence: { type: 'number', maximum: 1 } },
      },
    },
  },
  {
    type: 'schema',
    spec: {
      target: "steps[?name=='process_refund'].args",
      schema: { type: 'object', required: ['order_id', 'amount'] },
    },
  },
  { type: 'constraint', spec: { field: 'metadata.cost_usd', operator: 'lte', value: 1 } },
  {
    type: 'constraint',
    spec: { field: 'metadata.total_tokens', operator: 'between', min: 1_000, max: 100_000 },
  },
  { type: 'constraint', spec: { field: 'steps.length', operator: 'eq', value: STEPS } },
  { type: 'constraint', spec: { field: "steps[?type=='tool_call'].length", operator: 'gte', value: 800 } },
  { type: 'constraint', spec: { field: 'metadata.latency_ms', operator: 'lt', value: 120_000 } },
  { type: 'trace', spec: { check: 'contains_in_order', tools: ['lookup_1', 'lookup_2', 'process_refund'] } },
  { type: 'trace', spec: { check: 'exact_order', tools: ['lookup_1', 'lookup_2', 'lookup_3'] } },
  { type: 'trace', spec: { check: 'loop_detection', tool: 'lookup_1', max_repetitions: 200 } },
  { type: 'trace', spec: { check: 'required_tools', tools: ['process_refund', 'lookup_0'] } },
  { type: 'trace', spec: { check: 'forbidden_tools', tools: ['delete_account', 'wire_transfer'] } },
  { type: 'trace_tree', spec: { check: 'delegation_depth', max_depth: 2 } },
  { type: 'trace_tree', spec: { check: 'aggregate_cost', operator: 'lte', value: 1 } },
  { type: 'content', spec: { target: 'output.message', check: 'contains', value: 'refund' } },
  { type: 'content', spec: { target: 'output.message', check: 'not_contains', value: 'cannot process' } },
  { type: 'content', spec: { target: 'output.message', check: 'regex_match', value: 'RFD-\\d{3,}' } },
  {
    type: 'content',
    spec: { target: 'output.message', check: 'keyword_all', values: ['refund', 'processed', 'RFD-'] },
  },
  { type: 'content', spec: { target: 'output.message', check: 'keyword_any', values: ['refund', 'credit'] } },
  {
    type: 'content',
    spec: { target: 'output.message', check: 'forbidden', values: ['kill', 'bomb', 'password'] },
  },
].map((assertion, index) => ({ assertion_id: `a${String(index).padStart(2, '0')}`, ...assertion }));

const engine = spawn(process.execPath, [EVALS, 'engine', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: engine.stdout })[Symbol.asyncIterator]();

async function roundTrip(
  line: string,
): Promise<{ ms: number; reply: { result?: { results?: { status: string }[] }; error?: unknown } }> {
  const started = performance.now();
  engine.stdin.write(line);
  const next = await lines.next();
  const ms = performance.now() - started;
  if (next.done === true) throw new Error('the engine closed its stdout');
  return {
    ms,
    reply: JSON.parse(next.value) as { result?: { results?: { status: string }[] }; error?: unknown },
  };
}

const init = await roundTrip(
  `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { sdk_name: 'engine-bench', sdk_version: '1', protocol_version: 1, required_capabilities: ['layers_1_4'], preferred_encoding: 'json' } })}\n`,
);
if (init.reply.error !== undefined) throw new Error(`initialize failed: ${JSON.stringify(init.reply.error)}`);

const request = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evaluate_batch', params: { trace: benchTrace(), assertions: ASSERTIONS } })}\n`;
const timings: number[] = [];
const wallStarted = performance.now();
let timedWallMs = 0;
for (let index = 0; index < warmup + requests; index++) {
  if (index === warmup) timedWallMs = performance.now();
  const { ms, reply } = await roundTrip(request);
  const statuses = reply.result?.results?.map((result) => result.status) ?? [];
  if (statuses.length !== ASSERTIONS.length || statuses.some((status) => status !== 'pass')) {
    process.stderr.write(`engine-bench: unexpected reply ${JSON.stringify(reply).slice(0, 500)}\n`);
    process.exit(1);
  }
  if (index >= warmup) timings.push(ms);
}
timedWallMs = performance.now() - timedWallMs;
engine.stdin.end();
await new Promise((resolve) => engine.once('exit', resolve));

const sorted = [...timings].sort((a, b) => a - b);
const percentile = (p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
const result = {
  machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' },
  requestBytes: Buffer.byteLength(request),
  steps: STEPS,
  assertions: ASSERTIONS.length,
  warmup,
  requests,
  p50Ms: percentile(50),
  p99Ms: percentile(99),
  meanMs: timings.reduce((sum, ms) => sum + ms, 0) / timings.length,
  requestsPerSecond: requests / (timedWallMs / 1000),
  totalSeconds: (performance.now() - wallStarted) / 1000,
  targetP50Ms: TARGET_P50_MS,
  targetMet: percentile(50) < TARGET_P50_MS,
};

if (args.values.json) {
  process.stdout.write(`${JSON.stringify({ engine: result }, null, 2)}\n`);
} else {
  const ms = (value: number): string => `${value.toFixed(2)} ms`;
  process.stdout.write(
    [
      `checks engine over stdio — evaluate_batch, ${result.assertions} deterministic assertions, ${result.steps}-step trace (${(result.requestBytes / 1024).toFixed(0)} KiB request)`,
      `  machine   Node ${result.machine.node}, ${result.machine.cpus} × ${result.machine.cpuModel}`,
      `  requests  ${result.requests} timed after ${result.warmup} warm-up`,
      `  p50       ${ms(result.p50Ms)}   (target < ${TARGET_P50_MS} ms: ${result.targetMet ? 'met' : 'NOT met'})`,
      `  p99       ${ms(result.p99Ms)}`,
      `  mean      ${ms(result.meanMs)}`,
      `  rate      ${result.requestsPerSecond.toFixed(0)} requests/s`,
      '',
    ].join('\n'),
  );
}
