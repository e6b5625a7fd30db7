// The public Attest TypeScript SDK (@attest-ai/core 0.5.0) against our engine, byte for byte: the
// `evals-engine` bin spawned as the SDK's EngineManager spawns ATTEST_ENGINE_PATH, and the exact
// lines its code writes — EngineManager.start's initialize, AttestClient.submitPluginResult (which
// executePluginAssertion calls with the plugin's result), AttestClient.evaluateBatch with the
// ExpectChain.plugin() assertion, and EngineManager.stop's shutdown. Written from the SDK's source
// (sdks/typescript/packages/core/src: engine-manager.ts, client.ts, plugins.ts, expect.ts).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EngineProcess } from '@paperclip-evals/test-kit/engine-process';
import { FakeProvider, chatReply } from '@paperclip-evals/test-kit/fake-provider';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS_ENGINE = join(ROOT, 'packages/cli/bin/evals-engine.js');

const started: EngineProcess[] = [];
afterEach(() => {
  for (const engine of started.splice(0)) engine.kill();
});

/** EngineManager.start: spawn(enginePath, [`--log-level=${logLevel}`]) with the default level. */
function spawnAsTheSdk(env: Record<string, string> = {}): EngineProcess {
  const engine = EngineProcess.start('node', [EVALS_ENGINE, '--log-level=warn'], env);
  started.push(engine);
  return engine;
}

/** The lines exactly as the SDK's encodeRequest writes them (JSON.stringify of the message). */
const line = (id: number, method: string, params: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

const INITIALIZE = line(1, 'initialize', {
  sdk_name: 'attest-typescript',
  sdk_version: '0.5.0',
  protocol_version: 1,
  required_capabilities: ['layers_1_4'],
  preferred_encoding: 'json',
});

/** TraceBuilder.build(): trace_id, output, schema_version, agent_id, input, steps, metadata. */
const TRACE = {
  trace_id: 'trc_sdk_plugin',
  output: { message: 'Your refund RFD-001 is on its way.' },
  schema_version: 1,
  agent_id: 'support-agent',
  input: { user_message: 'refund ORD-1' },
  steps: [{ type: 'tool_call', name: 'process_refund', args: { order_id: 'ORD-1' } }],
  metadata: { cost_usd: 0.004 },
};

/** ExpectChain.add: assert_ + 8 hex digits; plugin(pluginId) sends {plugin_id, soft}. */
const ASSERTION_ID = 'assert_1a2b3c4d';
const PLUGIN_ASSERTION = {
  assertion_id: ASSERTION_ID,
  type: 'plugin',
  spec: { plugin_id: 'compliance', soft: false },
};

/**
 * AttestClient.submitPluginResult(traceId, pluginName, assertionId, status, score, explanation):
 * the result is a full AssertionResult row, assertion_id, cost 0.0 and duration_ms 0 included.
 */
const submitPluginResult = (id: number, status: string, score: number, explanation: string): string =>
  line(id, 'submit_plugin_result', {
    trace_id: TRACE.trace_id,
    plugin_name: 'compliance',
    assertion_id: ASSERTION_ID,
    result: { assertion_id: ASSERTION_ID, status, score, explanation, cost: 0.0, duration_ms: 0 },
  });

describe('the Attest SDK plugin helper flow, end to end against evals-engine', () => {
  for (const [status, score, expected] of [
    ['pass', 1, 'pass'],
    ['soft_fail', 0.6, 'soft_fail'],
    ['hard_fail', 0, 'hard_fail'],
  ] as const) {
    it(`a plugin result of ${status} submitted as executePluginAssertion submits it is the assertion's verdict`, async () => {
      const engine = spawnAsTheSdk();
      engine.send(INITIALIZE);
      expect((await engine.next()).result).toMatchObject({ compatible: true, missing: [] });
      // AttestClient's own id counter starts again at 1 once its reader runs.
      engine.send(submitPluginResult(1, status, score, 'rules checked'));
      const accepted = await engine.next();
      expect(accepted).toEqual({ jsonrpc: '2.0', id: 1, result: { accepted: true } });
      engine.send(line(2, 'evaluate_batch', { trace: TRACE, assertions: [PLUGIN_ASSERTION] }));
      const batch = await engine.next();
      expect(batch.id).toBe(2);
      expect(batch.result?.results).toMatchObject([
        {
          assertion_id: ASSERTION_ID,
          status: expected,
          score,
          explanation: 'rules checked',
          cost: 0,
          judge_metadata: { plugin_name: 'compliance', plugin_status: status },
        },
      ]);
      // The members of a full row inside `result` were ignored, not kept as metadata.
      expect(
        Object.keys((batch.result?.results as { judge_metadata: object }[])[0]?.judge_metadata ?? {}),
      ).toEqual(['plugin_name', 'plugin_status']);
      // EngineManager.stop: shutdown with its own counter (initialize was 1).
      engine.send(line(2, 'shutdown', {}));
      expect((await engine.next()).result).toEqual({ sessions_completed: 1, assertions_evaluated: 1 });
      expect((await engine.finish()).code).toBe(0);
    });
  }

  // Ours is stricter here (the Attest engine stores any status); the code is its code for
  // submit_plugin_result params it cannot take (handler.go:639-645).
  it('still refuses a result that is not a verdict (status, score) with 1002', async () => {
    const engine = spawnAsTheSdk();
    engine.send(INITIALIZE);
    await engine.next();
    engine.send(submitPluginResult(1, 'passed', 1, 'x'));
    expect((await engine.next()).error).toMatchObject({
      code: 1002,
      message: 'invalid submit_plugin_result params',
    });
    engine.send(submitPluginResult(2, 'pass', 1.5, 'x'));
    expect((await engine.next()).error).toMatchObject({ code: 1002 });
  });

  it('without a submitted result the plugin assertion is not_evaluated / missing_evidence, never a pass', async () => {
    const engine = spawnAsTheSdk();
    engine.send(INITIALIZE);
    await engine.next();
    engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [PLUGIN_ASSERTION] }));
    expect((await engine.next()).result?.results).toMatchObject([
      { assertion_id: ASSERTION_ID, status: 'not_evaluated', reason: 'missing_evidence' },
    ]);
  });
});

describe("the Attest engine's environment variables, through the real process", () => {
  let provider: FakeProvider;
  let cacheDir: string;
  beforeAll(async () => {
    provider = await FakeProvider.start();
    cacheDir = mkdtempSync(join(tmpdir(), 'attest-cache-'));
  });
  afterAll(async () => {
    await provider.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  /** ExpectChain.passesJudge(criteria): target, criteria, rubric "default", threshold 0.8 (model undefined, dropped). */
  const PASSES_JUDGE = {
    assertion_id: 'assert_0badf00d',
    type: 'llm_judge',
    spec: {
      target: 'output.message',
      criteria: 'Response is polite and helpful',
      rubric: 'default',
      threshold: 0.8,
      soft: false,
    },
  };

  it('ATTEST_OPENAI_API_KEY and ATTEST_JUDGE_MODEL configure the judge; a verdict in a code fence is read', async () => {
    provider.reset();
    provider.script(
      '/chat/completions',
      chatReply(
        'Here is my evaluation:\n```json\n{"score": 0.9, "explanation": "Polite and complete."}\n```',
      ),
    );
    const engine = spawnAsTheSdk({
      EVALS_ENGINE_PROVIDER_BASE_URL: provider.baseUrl,
      ATTEST_OPENAI_API_KEY: 'sk-attest-key',
      ATTEST_JUDGE_MODEL: 'gpt-4.1-mini',
    });
    engine.send(INITIALIZE);
    expect((await engine.next()).result?.capabilities).toContain('layers_5_6');
    engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [PASSES_JUDGE] }));
    const reply = await engine.next();
    expect(reply.result?.results).toMatchObject([{ status: 'pass', score: 0.9 }]);
    expect((reply.result?.results as { explanation: string }[])[0]?.explanation).toMatch(
      /Polite and complete/,
    );
    expect(provider.requests).toMatchObject([
      { path: '/chat/completions', authorization: 'Bearer sk-attest-key', body: { model: 'gpt-4.1-mini' } },
    ]);
    expect(engine.stderr.join('\n')).not.toContain('sk-attest-key');
  });

  it('ATTEST_BUDGET_MAX_COST is the session soft-failure budget', async () => {
    const engine = spawnAsTheSdk({ ATTEST_BUDGET_MAX_COST: '0' });
    engine.send(INITIALIZE);
    await engine.next();
    const soft = {
      assertion_id: 'assert_5o5o5o5o',
      type: 'constraint',
      spec: { field: 'metadata.cost_usd', operator: 'lte', value: 0.001, soft: true },
    };
    engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [soft] }));
    expect((await engine.next()).result).toMatchObject({
      results: [{ status: 'soft_fail' }],
      budget_exceeded: true,
    });
  });

  it('ATTEST_CACHE_DIR keeps drift history across engine processes', async () => {
    const check = {
      assertion_id: 'assert_cac4e000',
      type: 'constraint',
      spec: { field: 'metadata.cost_usd', operator: 'lte', value: 0.01 },
    };
    for (const run of [1, 2]) {
      const engine = spawnAsTheSdk({ ATTEST_CACHE_DIR: cacheDir });
      engine.send(INITIALIZE);
      await engine.next();
      engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [check] }));
      await engine.next();
      engine.send(line(2, 'query_drift', { assertion_id: check.assertion_id }));
      // query_drift's count is the baseline before the newest run: 0 in the first process, 1 in the second.
      expect((await engine.next()).result).toMatchObject({ report: { count: run - 1, latest_score: 1 } });
      engine.send(line(3, 'shutdown', {}));
      await engine.next();
      expect((await engine.finish()).code).toBe(0);
    }
  });
});

describe('ATTEST_CONTRACTS_DIR: assertion specs recorded with their context (seed 003)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'attest-contracts-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const check = {
    assertion_id: 'assert_c0ffee00',
    type: 'content',
    spec: {
      target: 'output.message',
      check: 'contains',
      value: 'refund',
      case_sensitive: false,
      soft: false,
    },
  };

  it('appends one line per batch: trace id, context, and each assertion spec', async () => {
    const engine = spawnAsTheSdk({ ATTEST_CONTRACTS_DIR: dir });
    engine.send(INITIALIZE);
    await engine.next();
    const context = { test_id: 'tests/refund.test.ts::refunds', file: 'tests/refund.test.ts', line: 12 };
    engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [check], context }));
    expect((await engine.next()).result?.results).toMatchObject([{ status: 'pass' }]);
    engine.send(line(2, 'evaluate_batch', { trace: TRACE, assertions: [check] }));
    await engine.next();
    const lines = readFileSync(join(dir, 'assertion-specs.ndjson'), 'utf8').trimEnd().split('\n');
    expect(lines.map((text) => JSON.parse(text) as unknown)).toEqual([
      { trace_id: TRACE.trace_id, context, assertions: [check] },
      { trace_id: TRACE.trace_id, assertions: [check] },
    ]);
  });

  it('refuses to start when the folder does not exist (exit 2, the variable named)', async () => {
    const engine = spawnAsTheSdk({ ATTEST_CONTRACTS_DIR: join(dir, 'missing') });
    expect(await engine.exited).toBe(2);
    expect(engine.stderr.join('\n')).toMatch(/ATTEST_CONTRACTS_DIR/);
  });

  it('answers a batch it cannot record 3001 and evaluates nothing', async () => {
    const readOnly = mkdtempSync(join(tmpdir(), 'attest-contracts-ro-'));
    const engine = EngineProcess.start(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', 'node', EVALS_ENGINE, '--log-level=warn'],
      { ATTEST_CONTRACTS_DIR: readOnly },
    );
    started.push(engine);
    chmodSync(readOnly, 0o755);
    engine.send(INITIALIZE);
    await engine.next();
    engine.send(line(1, 'evaluate_batch', { trace: TRACE, assertions: [check] }));
    expect((await engine.next()).error).toMatchObject({ code: 3001, data: { error_type: 'ENGINE_ERROR' } });
    rmSync(readOnly, { recursive: true, force: true });
  });
});

describe("the Attest engine's protocol bounds and names", () => {
  it("offers the Attest engine's capability names for what it has (trace_tree; llm_judge, embedding with a provider)", async () => {
    const bare = spawnAsTheSdk();
    bare.send(
      line(1, 'initialize', {
        sdk_name: 'attest-typescript',
        sdk_version: '0.5.0',
        protocol_version: 1,
        required_capabilities: ['layers_1_4', 'trace_tree', 'plugins'],
        preferred_encoding: 'json',
      }),
    );
    expect((await bare.next()).result).toMatchObject({ compatible: true, missing: [] });
    const configured = spawnAsTheSdk({
      EVALS_ENGINE_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
      EVALS_ENGINE_JUDGE_MODEL: 'judge',
      EVALS_ENGINE_EMBEDDING_MODEL: 'embed',
    });
    configured.send(INITIALIZE);
    expect((await configured.next()).result?.capabilities).toEqual(
      expect.arrayContaining(['layers_5_6', 'llm_judge', 'embedding', 'simulation']),
    );
  });

  it('answers an assertion_id over 256 bytes 1002, as the Attest engine does', async () => {
    const engine = spawnAsTheSdk();
    engine.send(INITIALIZE);
    await engine.next();
    const check = { type: 'trace', spec: { check: 'no_duplicates', soft: false } };
    engine.send(
      line(1, 'evaluate_batch', { trace: TRACE, assertions: [{ assertion_id: 'é'.repeat(129), ...check }] }),
    );
    expect((await engine.next()).error).toMatchObject({
      code: 1002,
      data: { error_type: 'ASSERTION_ERROR' },
    });
    engine.send(
      line(2, 'evaluate_batch', { trace: TRACE, assertions: [{ assertion_id: 'a'.repeat(256), ...check }] }),
    );
    expect((await engine.next()).result?.results).toMatchObject([{ status: 'pass' }]);
  });

  it('answers a step over 1 MiB 1001, as the Attest engine does', async () => {
    const engine = spawnAsTheSdk();
    engine.send(INITIALIZE);
    await engine.next();
    const big = { type: 'tool_call', name: 'fetch_page', result: { html: 'x'.repeat(1024 * 1024) } };
    engine.send(line(1, 'evaluate_batch', { trace: { ...TRACE, steps: [big] }, assertions: [] }));
    const reply = await engine.next();
    expect(reply.error).toMatchObject({ code: 1001, data: { error_type: 'INVALID_TRACE' } });
    expect(reply.error?.message).toMatch(
      /^trace step 'fetch_page' exceeds max payload size: \d+ > 1048576 bytes$/,
    );
  });
});
