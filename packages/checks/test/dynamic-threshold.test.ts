// Verdicts in the drift history, and dynamic thresholds (`spec.threshold: "dynamic"`): every row with
// a verdict is recorded by the batch that reports it (never by a plugin submission alone); a dynamic
// assertion is held to the bar its own history sets, carries its drift report, and falls back to
// its static verdict (dynamic_unavailable) when the history cannot be read.
import { describe, expect, it } from 'vitest';

import { EngineServer } from '../src/engine-server.ts';
import { evaluateAssertions } from '../src/evaluate.ts';
import { InMemoryDriftHistory } from '../src/drift.ts';
import { ChecksError } from '../src/errors.ts';
import { PluginResults } from '../src/plugin-results.ts';
import { traceFromJSON } from '../src/trace.ts';

import type { Assertion } from '../src/assertion-types.ts';
import type { DriftHistory } from '../src/drift.ts';

const TRACE = traceFromJSON({
  schema_version: 1,
  trace_id: 'trc_dynamic',
  steps: [{ type: 'tool_call', name: 'lookup' }],
  output: { message: 'Refund issued.' },
});

const plugin = (spec: Record<string, unknown> = {}): Assertion => ({
  assertion_id: 'quality',
  type: 'plugin',
  spec: { plugin_name: 'grader', ...spec },
});

/** One batch of the plugin assertion, its score submitted first (as an SDK would). */
async function runWithScore(
  history: DriftHistory | undefined,
  score: number,
  spec: Record<string, unknown> = { threshold: 'dynamic' },
): ReturnType<typeof evaluateAssertions> {
  const plugins = new PluginResults();
  plugins.submit('trc_dynamic', 'quality', 'grader', {
    status: 'pass',
    score,
    explanation: `graded ${score}`,
  });
  return evaluateAssertions(TRACE, [plugin(spec)], {
    pluginResults: plugins,
    ...(history === undefined ? {} : { history }),
  });
}

describe('the drift history of a batch', () => {
  it('records every verdict row, marks it static, and leaves not_evaluated rows out', async () => {
    const history = new InMemoryDriftHistory();
    const { results } = await evaluateAssertions(
      TRACE,
      [
        { assertion_id: 'tools', type: 'trace', spec: { check: 'required_tools', tools: ['lookup'] } },
        { assertion_id: 'judge', type: 'llm_judge', spec: { rubric: 'helpfulness' } },
      ],
      { history },
    );
    expect(results.map((row) => [row.status, row.threshold_source])).toEqual([
      ['pass', 'static'],
      ['not_evaluated', undefined],
    ]);
    expect(await history.runs('tools')).toEqual([{ score: 1, status: 'pass' }]);
    expect(await history.runs('judge')).toEqual([]);
  });

  it('does not record a submitted plugin result until a batch reports it', async () => {
    const server = new EngineServer();
    const send = async (id: number, method: string, params: object): Promise<{ result?: unknown }> =>
      JSON.parse((await server.handleLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) ?? '') as {
        result?: unknown;
      };
    await send(1, 'initialize', { sdk_name: 't', sdk_version: '1', protocol_version: 1 });
    await send(2, 'submit_plugin_result', {
      trace_id: 'trc_dynamic',
      plugin_name: 'grader',
      assertion_id: 'quality',
      result: { status: 'pass', score: 0.9, explanation: 'ok' },
    });
    expect((await send(3, 'query_drift', { assertion_id: 'quality' })).result).toMatchObject({
      // No runs: the Attest engine's zeros (handler.go:571-609), not nulls.
      report: { count: 0, latest_score: 0, mean: 0 },
    });
    await send(4, 'evaluate_batch', { trace: TRACE, assertions: [plugin()] });
    expect((await send(5, 'query_drift', { assertion_id: 'quality' })).result).toMatchObject({
      report: { count: 0, latest_score: 0.9 },
    });
    expect((await send(6, 'shutdown', {})).result).toEqual({
      sessions_completed: 1,
      assertions_evaluated: 1,
    });
  });
});

describe('a dynamic assertion', () => {
  it('keeps its static verdict, with its drift, while the baseline is shorter than 10 runs', async () => {
    const history = new InMemoryDriftHistory();
    for (let run = 0; run < 9; run++) await runWithScore(history, 0.95);
    const { results } = await runWithScore(history, 0.85);
    expect(results[0]).toMatchObject({
      status: 'pass',
      threshold_source: 'static',
      drift: { assertion_id: 'quality', count: 9, latest_score: 0.85, baseline_active: false, status: 'ok' },
    });
  });

  it('fails a score below the bar its history sets, though it passes its static threshold', async () => {
    const history = new InMemoryDriftHistory();
    for (let run = 0; run < 10; run++) await runWithScore(history, 0.95);
    const { results } = await runWithScore(history, 0.85);
    // bar = max(0.8, 0.95 − 2 · max(0, 0.02)) = 0.91
    expect(results[0]).toMatchObject({
      status: 'hard_fail',
      threshold_source: 'dynamic',
      drift: { count: 10, latest_score: 0.85, baseline_active: true, status: 'drift_detected' },
    });
    expect(results[0]?.drift?.bar).toBeCloseTo(0.91, 10);
    expect(results[0]?.explanation).toMatch(/below the dynamic bar 0\.91/);
    // What the batch recorded is what query_drift reads next.
    expect((await history.runs('quality')).at(-1)).toEqual({ score: 0.85, status: 'hard_fail' });
  });

  it('fails softly when the assertion is soft, and passes a score at or above the bar', async () => {
    const history = new InMemoryDriftHistory();
    for (let run = 0; run < 10; run++) await runWithScore(history, 0.95);
    const soft = await runWithScore(history, 0.85, { threshold: 'dynamic', soft: true });
    expect(soft.results[0]).toMatchObject({ status: 'soft_fail', threshold_source: 'dynamic' });
    const steady = await runWithScore(history, 0.94);
    expect(steady.results[0]).toMatchObject({
      status: 'pass',
      threshold_source: 'dynamic',
      drift: { status: 'ok' },
    });
  });

  it('never turns a failure into a pass: a static failure above the bar stays a failure', async () => {
    const history = new InMemoryDriftHistory();
    for (let run = 0; run < 10; run++) await runWithScore(history, 0.5);
    const plugins = new PluginResults();
    plugins.submit('trc_dynamic', 'quality', 'grader', {
      status: 'hard_fail',
      score: 0.9,
      explanation: 'no',
    });
    const { results } = await evaluateAssertions(TRACE, [plugin({ threshold: 'dynamic' })], {
      pluginResults: plugins,
      history,
    });
    expect(results[0]).toMatchObject({
      status: 'hard_fail',
      threshold_source: 'dynamic',
      drift: { status: 'ok' },
    });
  });

  it('falls back to its static verdict (dynamic_unavailable) when the history cannot be read', async () => {
    let appended = 0;
    const down: DriftHistory = {
      append: () => {
        appended++;
        return Promise.reject(new ChecksError('drift_history_unavailable', 'store offline'));
      },
      runs: () => Promise.reject(new ChecksError('drift_history_unavailable', 'store offline')),
    };
    const evaluation = await runWithScore(down, 0.85);
    expect(evaluation.results[0]).toMatchObject({ status: 'pass', threshold_source: 'dynamic_unavailable' });
    expect(evaluation.results[0]?.drift).toBeUndefined();
    expect(evaluation.results[0]?.explanation).toMatch(
      /^\[dynamic_unavailable: store offline\] graded 0\.85/,
    );
    expect(evaluation.history_errors).toEqual(['store offline']);
    expect(appended).toBe(0);
  });

  it('is dynamic_unavailable without a history at all', async () => {
    const { results } = await runWithScore(undefined, 0.85);
    expect(results[0]).toMatchObject({ status: 'pass', threshold_source: 'dynamic_unavailable' });
    expect(results[0]?.explanation).toMatch(/no drift history is configured/);
  });

  it('is still answered over the wire when the store is down', async () => {
    const server = new EngineServer({
      history: {
        append: () => Promise.reject(new ChecksError('drift_history_unavailable', 'store offline')),
        runs: () => Promise.reject(new ChecksError('drift_history_unavailable', 'store offline')),
      },
    });
    await server.handleLine(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { sdk_name: 't', sdk_version: '1', protocol_version: 1 },
      }),
    );
    const reply = JSON.parse(
      (await server.handleLine(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'evaluate_batch',
          params: {
            trace: TRACE,
            assertions: [
              {
                assertion_id: 'tools',
                type: 'trace',
                spec: { check: 'required_tools', tools: ['lookup'], threshold: 'dynamic' },
              },
            ],
          },
        }),
      )) ?? '',
    ) as { result?: { results: unknown[] } };
    expect(reply.result?.results).toMatchObject([
      { status: 'pass', threshold_source: 'dynamic_unavailable' },
    ]);
  });
});
