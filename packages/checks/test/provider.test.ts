// Layers 5–6 against a real HTTP server on 127.0.0.1 playing an OpenAI-compatible provider: each way
// a model call can go wrong is not_evaluated with its reason (never a pass), retries are bounded and
// costed, budgets refuse calls, and a model without a price is counted, never costed at 0.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { evaluateAssertions } from '../src/evaluate.ts';
import { ModelGateway } from '../src/model-gateway.ts';
import { OpenAiCompatibleProvider, providerConfigFromEnv, sessionBudgetFromEnv } from '../src/provider.ts';
import { traceFromJSON } from '../src/trace.ts';
import { FakeProvider, chatReply, embeddingReply } from '@paperclip-evals/test-kit/fake-provider';

import type { Assertion } from '../src/assertion-types.ts';
import type { BatchBudget } from '../src/model-gateway.ts';
import type { SessionBudget } from '../src/provider.ts';

const TRACE = traceFromJSON({
  schema_version: 1,
  trace_id: 't',
  input: { q: 'refund?' },
  output: { message: 'Refund RFD-001 processed.' },
});
const JUDGE: Assertion = {
  assertion_id: 'judge',
  type: 'llm_judge',
  spec: { rubric: 'helpfulness', threshold: 0.7 },
};
const PRICES = {
  'judge-model': { input_usd_per_mtok: 2, output_usd_per_mtok: 8 },
  'embed-model': { input_usd_per_mtok: 0.1, output_usd_per_mtok: 0 },
};
/** 1,000 input and 100 output tokens of judge-model: (1000·2 + 100·8) / 1e6 USD. */
const JUDGE_CALL_USD = 0.0028;

let provider: FakeProvider;
beforeAll(async () => {
  provider = await FakeProvider.start();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
});

function gateway(
  options: { timeoutMs?: number; maxRetries?: number; session?: SessionBudget; priced?: boolean } = {},
): ModelGateway {
  return new ModelGateway(
    new OpenAiCompatibleProvider({
      baseUrl: provider.baseUrl,
      apiKey: 'sk-test',
      timeoutMs: options.timeoutMs ?? 10_000,
    }),
    { maxRetries: options.maxRetries ?? 2, retryDelayMs: 1, prices: options.priced === false ? {} : PRICES },
    options.session ?? {},
  );
}

async function run(assertions: Assertion[], models = gateway(), budget: BatchBudget = {}) {
  return evaluateAssertions(TRACE, assertions, {
    models: { calls: models.forBatch(budget), judgeModel: 'judge-model', embeddingModel: 'embed-model' },
  });
}

describe('llm_judge through an OpenAI-compatible provider', () => {
  it('passes on a good verdict, sending the key, and costs the call from the price table', async () => {
    provider.script('/chat/completions', chatReply('{"score": 0.9, "reason": "direct and complete"}'));
    const { results, usage, total_cost } = await run([JUDGE]);
    expect(results[0]).toMatchObject({
      status: 'pass',
      score: 0.9,
      layer: 6,
      judge_metadata: { model: 'judge-model', priced: true },
    });
    expect(results[0]?.cost).toBeCloseTo(JUDGE_CALL_USD, 12);
    expect(total_cost).toBeCloseTo(JUDGE_CALL_USD, 12);
    expect(usage).toMatchObject({
      model_calls: 1,
      judge_calls: 1,
      input_tokens: 1000,
      output_tokens: 100,
      unpriced_calls: 0,
      retry_cost_usd: 0,
    });
    expect(provider.requests[0]).toMatchObject({
      path: '/chat/completions',
      authorization: 'Bearer sk-test',
      body: { model: 'judge-model', temperature: 0 },
    });
  });

  it('hard-fails a score below the threshold, soft-fails it when soft', async () => {
    provider.script(
      '/chat/completions',
      chatReply('{"score": 0.3, "reason": "off topic"}'),
      chatReply('{"score": 0.3, "reason": "off topic"}'),
    );
    const { results } = await run([
      JUDGE,
      { assertion_id: 'soft', type: 'llm_judge', spec: { rubric: 'tone', soft: true } },
    ]);
    expect(results.map((result) => result.status)).toEqual(['hard_fail', 'soft_fail']);
  });

  it('fills a prompt template once: the agent output is sent as it is, never expanded', async () => {
    provider.script('/chat/completions', chatReply('{"score": 0.9, "reason": "ok"}'));
    const trace = traceFromJSON({
      schema_version: 1,
      trace_id: 't',
      input: { q: 'refund?' },
      output: { message: 'see {{input}} and $& here' },
    });
    await evaluateAssertions(
      trace,
      [{ assertion_id: 'judge', type: 'llm_judge', spec: { prompt: 'Q: {{input}} A: {{output}}' } }],
      { models: { calls: gateway().forBatch(), judgeModel: 'judge-model' } },
    );
    const messages = provider.requests[0]?.body.messages as { content: string }[];
    expect(messages[1]?.content).toBe('Q: {"q":"refund?"} A: see {{input}} and $& here');
  });

  it('judges a dynamic threshold by the default static one (0.8, as the peer engine) until its history says more', async () => {
    provider.script(
      '/chat/completions',
      chatReply('{"score": 0.85, "reason": "fine"}'),
      chatReply('{"score": 0.75, "reason": "weak"}'),
    );
    const dynamic = {
      assertion_id: 'judge',
      type: 'llm_judge',
      spec: { rubric: 'tone', threshold: 'dynamic' },
    };
    const { results } = await run([dynamic, { ...dynamic, assertion_id: 'judge-2' }]);
    expect(results.map((result) => [result.status, result.threshold_source])).toEqual([
      ['pass', 'dynamic_unavailable'],
      ['hard_fail', 'dynamic_unavailable'],
    ]);
    expect(results[0]?.expected).toBe(0.8);
  });

  it('hard-fails a judge or embedding target that is not in the trace, soft or not, calling no model', async () => {
    const { results } = await run([
      { ...JUDGE, spec: { ...JUDGE.spec, target: 'output.nope', soft: true } },
      { assertion_id: 'emb', type: 'embedding', spec: { target: 'output.nope', reference: 'x', soft: true } },
    ]);
    expect(results).toMatchObject([
      { status: 'hard_fail', explanation: 'target resolution failed: field "nope" not found in output' },
      { status: 'hard_fail', explanation: 'target resolution failed: field "nope" not found in output' },
    ]);
    expect(provider.requests).toEqual([]);
  });

  it('meta-evaluates (spec.meta_eval, or ATTEST_JUDGE_META_EVAL): the median of three calls, costing all three', async () => {
    provider.script(
      '/chat/completions',
      chatReply('{"score": 0.9, "reason": "good"}'),
      chatReply('{"score": 0.4, "reason": "poor"}'),
      chatReply('```json\n{"score": 0.7, "explanation": "fair"}\n```'),
    );
    const { results } = await run([{ ...JUDGE, spec: { ...JUDGE.spec, threshold: 0.8, meta_eval: true } }]);
    expect(results[0]).toMatchObject({
      status: 'hard_fail',
      score: 0.7,
      judge_metadata: { meta_eval_runs: 3 },
    });
    expect(results[0]?.cost).toBeCloseTo(3 * JUDGE_CALL_USD, 12);
    expect(results[0]?.explanation).toMatch(/median 0\.7 \[high variance: spread 0\.50 across 3 runs\]/);
    expect(provider.requests.map((request) => request.body.temperature)).toEqual([0.3, 0.3, 0.3]);

    provider.reset();
    provider.script('/chat/completions', chatReply('nope'), chatReply('{"score": 0.85}'), chatReply('nope'));
    const models = gateway();
    const viaEnv = await evaluateAssertions(TRACE, [JUDGE], {
      models: { calls: models.forBatch({}), judgeModel: 'judge-model', judgeMetaEval: true },
    });
    expect(viaEnv.results[0]).toMatchObject({
      status: 'pass',
      score: 0.85,
      judge_metadata: { meta_eval_scores: [0.85] },
    });

    provider.reset();
    provider.script(
      '/chat/completions',
      chatReply('nope'),
      chatReply('still no'),
      chatReply('{"abstain": true}'),
    );
    const none = await run([{ ...JUDGE, spec: { ...JUDGE.spec, meta_eval: true } }]);
    expect(none.results[0]).toMatchObject({ status: 'not_evaluated', reason: 'judge_malformed' });
  });

  it.each([
    ['prose instead of JSON', 'Looks great to me!', 'judge_malformed'],
    ['a score out of range', '{"score": 7}', 'judge_malformed'],
    ['a score that is a string', '{"score": "0.9"}', 'judge_malformed'],
    ['an abstention', '{"abstain": true, "reason": "no context given"}', 'judge_abstained'],
  ])('reports %s as not_evaluated', async (_name, content, reason) => {
    provider.script('/chat/completions', chatReply(content));
    const { results } = await run([JUDGE]);
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason, score: 0 });
  });

  it('reports refused credentials (401) as provider_auth, without retrying', async () => {
    provider.script('/chat/completions', { status: 401, body: { error: { message: 'bad key' } } });
    const { results, usage } = await run([JUDGE]);
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'provider_auth' });
    expect(usage.model_calls).toBe(1);
    expect(provider.requests).toHaveLength(1);
  });

  it('never echoes the API key an HTTP error body quotes (the explanation is stored and reported)', async () => {
    provider.script('/chat/completions', {
      status: 400,
      body: { error: { message: 'Incorrect API key provided: sk-test. You can find your key at …' } },
    });
    const { results } = await run([JUDGE]);
    expect(results[0]).toMatchObject({ status: 'not_evaluated' });
    expect(results[0]?.explanation).toMatch(/HTTP 400: .*Incorrect API key provided: \*\*\*/);
    expect(JSON.stringify(results)).not.toContain('sk-test');
  });

  it('never echoes the credentials of a base URL it cannot reach', async () => {
    const unreachable = new ModelGateway(
      new OpenAiCompatibleProvider({
        baseUrl: 'http://user:url-secret-1@127.0.0.1:1/v1?api_key=url-secret-2',
        apiKey: 'sk-unreachable',
        timeoutMs: 2000,
      }),
      { maxRetries: 0, retryDelayMs: 1, prices: PRICES },
      {},
    );
    const { results } = await run([JUDGE], unreachable);
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'provider_unavailable' });
    for (const secret of ['url-secret-1', 'url-secret-2', 'sk-unreachable'])
      expect(JSON.stringify(results)).not.toContain(secret);
  });

  it('retries 5xx a bounded number of times, then reports provider_unavailable', async () => {
    provider.script(
      '/chat/completions',
      { status: 500, body: {} },
      { status: 502, body: {} },
      { status: 503, body: {} },
    );
    const { results, usage } = await run([JUDGE]);
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'provider_unavailable' });
    expect(results[0]?.explanation).toMatch(/3 attempts/);
    expect(usage).toMatchObject({ model_calls: 3, judge_calls: 3, cost_usd: 0 });
  });

  it('counts the cost of a successful retry in retry_cost_usd', async () => {
    provider.script(
      '/chat/completions',
      { status: 503, body: {} },
      chatReply('{"score": 0.8, "reason": "fine"}'),
    );
    const { results, usage } = await run([JUDGE]);
    expect(results[0]).toMatchObject({ status: 'pass', judge_metadata: { attempts: 2 } });
    expect(usage.model_calls).toBe(2);
    expect(usage.retry_cost_usd).toBeCloseTo(JUDGE_CALL_USD, 12);
    expect(usage.cost_usd).toBeCloseTo(JUDGE_CALL_USD, 12);
  });

  it('gives up on a provider that does not answer in time, as provider_unavailable', async () => {
    provider.script('/chat/completions', 'hang', 'hang');
    const { results, usage } = await run([JUDGE], gateway({ timeoutMs: 200, maxRetries: 1 }));
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'provider_unavailable' });
    expect(usage.model_calls).toBe(2);
  });

  it('counts a call to a model without a price as unpriced, never as costing 0', async () => {
    provider.script('/chat/completions', chatReply('{"score": 0.9, "reason": "ok"}'));
    const { results, usage } = await run([JUDGE], gateway({ priced: false }));
    expect(results[0]).toMatchObject({ status: 'pass', judge_metadata: { priced: false } });
    expect(usage).toMatchObject({ model_calls: 1, unpriced_calls: 1, cost_usd: 0, input_tokens: 1000 });
  });
});

describe('budgets', () => {
  const second: Assertion = { assertion_id: 'judge-2', type: 'llm_judge', spec: { rubric: 'tone' } };

  it('refuses judge calls beyond the batch max_judge_calls as budget_exhausted', async () => {
    provider.script('/chat/completions', chatReply('{"score": 0.9, "reason": "ok"}'));
    const { results, usage } = await run([JUDGE, second], gateway(), { max_judge_calls: 1 });
    expect(results.map((result) => [result.status, result.reason])).toEqual([
      ['pass', undefined],
      ['not_evaluated', 'budget_exhausted'],
    ]);
    expect(usage).toMatchObject({ judge_calls: 1, budget_refused: 1 });
  });

  it('refuses calls once the batch max_cost_usd is spent (0 means none at all)', async () => {
    const { results } = await run([JUDGE], gateway(), { max_cost_usd: 0 });
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'budget_exhausted' });
    expect(provider.requests).toHaveLength(0);
  });

  it('refuses a cost-capped call to an unpriced model (the cap could not be enforced)', async () => {
    const { results } = await run([JUDGE], gateway({ priced: false }), { max_cost_usd: 1 });
    expect(results[0]).toMatchObject({ status: 'not_evaluated', reason: 'budget_exhausted' });
  });

  it('applies the session budget across batches', async () => {
    provider.script('/chat/completions', chatReply('{"score": 0.9, "reason": "ok"}'));
    const session = gateway({ session: { maxJudgeCalls: 1 } });
    expect((await run([JUDGE], session)).results[0]?.status).toBe('pass');
    const next = await run([JUDGE], session);
    expect(next.results[0]).toMatchObject({ status: 'not_evaluated', reason: 'budget_exhausted' });
    expect(session.sessionUsage).toMatchObject({ judge_calls: 1, budget_refused: 1 });
  });
});

describe('embedding through an OpenAI-compatible provider', () => {
  const EMBEDDING: Assertion = {
    assertion_id: 'emb',
    type: 'embedding',
    spec: { target: 'output.message', reference: 'The refund is processed.', threshold: 0.8 },
  };

  it('passes at cosine similarity 1 and fails at 0', async () => {
    provider.script(
      '/embeddings',
      embeddingReply([
        [1, 2, 3],
        [2, 4, 6],
      ]),
      embeddingReply([
        [1, 0],
        [0, 1],
      ]),
    );
    const same = await run([EMBEDDING]);
    expect(same.results[0]).toMatchObject({ status: 'pass', layer: 5 });
    expect(same.results[0]?.score).toBeCloseTo(1, 12);
    expect(provider.requests[0]?.body).toEqual({
      model: 'embed-model',
      input: ['Refund RFD-001 processed.', 'The refund is processed.'],
    });
    const orthogonal = await run([EMBEDDING]);
    expect(orthogonal.results[0]).toMatchObject({ status: 'hard_fail', score: 0 });
    expect(orthogonal.usage).toMatchObject({ model_calls: 1, judge_calls: 0 });
  });

  it('reports a reply without usable vectors as provider_unavailable', async () => {
    provider.script('/embeddings', { status: 200, body: { data: [{ embedding: 'nope' }] } });
    expect((await run([EMBEDDING])).results[0]).toMatchObject({
      status: 'not_evaluated',
      reason: 'provider_unavailable',
    });
  });
});

describe('provider settings from the environment', () => {
  it('is absent without a base URL, and reads every setting with one', () => {
    expect(providerConfigFromEnv({})).toBeUndefined();
    expect(
      providerConfigFromEnv({
        EVALS_ENGINE_PROVIDER_BASE_URL: 'https://api.example.com/v1/',
        EVALS_ENGINE_PROVIDER_API_KEY: 'k',
        EVALS_ENGINE_JUDGE_MODEL: 'j',
        EVALS_ENGINE_PROVIDER_MAX_RETRIES: '0',
        EVALS_ENGINE_MODEL_PRICES: JSON.stringify(PRICES),
      }),
    ).toEqual({
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'k',
      judgeModel: 'j',
      timeoutMs: 30_000,
      maxRetries: 0,
      retryDelayMs: 250,
      prices: PRICES,
    });
  });

  it.each([
    [{ EVALS_ENGINE_PROVIDER_BASE_URL: 'not a url' }],
    [{ EVALS_ENGINE_PROVIDER_BASE_URL: 'file:///etc' }],
    [{ EVALS_ENGINE_PROVIDER_BASE_URL: 'http://x', EVALS_ENGINE_PROVIDER_TIMEOUT_MS: '0' }],
    [
      {
        EVALS_ENGINE_PROVIDER_BASE_URL: 'http://x',
        EVALS_ENGINE_MODEL_PRICES: '{"m": {"input_usd_per_mtok": -1, "output_usd_per_mtok": 1}}',
      },
    ],
    [{ EVALS_ENGINE_PROVIDER_BASE_URL: 'http://x', EVALS_ENGINE_MODEL_PRICES: 'cheap' }],
  ])('refuses %j', (env) => {
    expect(() => providerConfigFromEnv(env)).toThrow(
      expect.objectContaining({ name: 'ChecksError', code: 'engine_config_invalid' }),
    );
  });

  it('names a base URL that is not a URL without the token it carries', () => {
    expect(() =>
      providerConfigFromEnv({ EVALS_ENGINE_PROVIDER_BASE_URL: 'not a url ?access_token=tok-123' }),
    ).toThrow(/access_token=\*\*\*/);
    expect(() =>
      providerConfigFromEnv({ EVALS_ENGINE_PROVIDER_BASE_URL: 'not a url ?access_token=tok-123' }),
    ).not.toThrow(/tok-123/);
  });

  it('reads the session budget, refusing a negative cost', () => {
    expect(
      sessionBudgetFromEnv({
        EVALS_ENGINE_SESSION_MAX_JUDGE_CALLS: '5',
        EVALS_ENGINE_SESSION_MAX_COST_USD: '0',
      }),
    ).toEqual({ maxJudgeCalls: 5, maxCostUsd: 0 });
    expect(() => sessionBudgetFromEnv({ EVALS_ENGINE_SESSION_MAX_COST_USD: '-1' })).toThrow(
      expect.objectContaining({ name: 'ChecksError', code: 'engine_config_invalid' }),
    );
  });
});
