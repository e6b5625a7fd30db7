// The Attest engine's own environment variables, honoured beside ours so that swapping engines needs
// no new settings: each Attest name alone configures what the Attest engine configures with it, ours
// win where both are set, and a value neither engine could use is refused (the engine does not start).
import { describe, expect, it } from 'vitest';

import { engineOptionsFromEnv } from '../src/engine-config.ts';
import {
  ATTEST_DEFAULT_EMBEDDING_MODEL,
  ATTEST_DEFAULT_JUDGE_MODEL,
  OPENAI_BASE_URL,
  providerConfigFromEnv,
} from '../src/provider.ts';

const quiet = (): undefined => undefined;

describe('the Attest engine environment variables', () => {
  it('ATTEST_OPENAI_API_KEY alone configures OpenAI with the Attest default models', () => {
    expect(providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk-attest' })).toMatchObject({
      baseUrl: OPENAI_BASE_URL,
      apiKey: 'sk-attest',
      judgeModel: ATTEST_DEFAULT_JUDGE_MODEL,
      embeddingModel: ATTEST_DEFAULT_EMBEDDING_MODEL,
    });
    expect(providerConfigFromEnv({})).toBeUndefined();
  });

  it('ATTEST_JUDGE_MODEL names the judge model; our own names win where both are set', () => {
    expect(
      providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk', ATTEST_JUDGE_MODEL: 'gpt-4.1-mini' })?.judgeModel,
    ).toBe('gpt-4.1-mini');
    expect(
      providerConfigFromEnv({
        ATTEST_OPENAI_API_KEY: 'sk-attest',
        ATTEST_JUDGE_MODEL: 'gpt-4.1-mini',
        EVALS_ENGINE_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
        EVALS_ENGINE_PROVIDER_API_KEY: 'sk-ours',
        EVALS_ENGINE_JUDGE_MODEL: 'ours',
      }),
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-ours', judgeModel: 'ours' });
    // With our base URL the Attest key is still the key, and the Attest judge model the model.
    const mixed = providerConfigFromEnv({
      ATTEST_OPENAI_API_KEY: 'sk-attest',
      ATTEST_JUDGE_MODEL: 'gpt-4.1-mini',
      EVALS_ENGINE_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(mixed).toMatchObject({ apiKey: 'sk-attest', judgeModel: 'gpt-4.1-mini' });
    expect(mixed?.embeddingModel).toBeUndefined();
  });

  it('ATTEST_EMBEDDING_PROVIDER: auto and openai embed with OpenAI, onnx (not built in) embeds nothing', () => {
    for (const provider of ['auto', 'openai'])
      expect(
        providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk', ATTEST_EMBEDDING_PROVIDER: provider })
          ?.embeddingModel,
      ).toBe(ATTEST_DEFAULT_EMBEDDING_MODEL);
    expect(
      providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk', ATTEST_EMBEDDING_PROVIDER: 'onnx' })
        ?.embeddingModel,
    ).toBeUndefined();
    expect(() => providerConfigFromEnv({ ATTEST_EMBEDDING_PROVIDER: 'cohere' })).toThrow(
      expect.objectContaining({ name: 'ChecksError', code: 'engine_config_invalid' }),
    );
  });

  it('ATTEST_JUDGE_PROVIDER: openai is accepted; any other provider is refused, as the Attest engine refuses it', () => {
    expect(
      providerConfigFromEnv({ ATTEST_JUDGE_PROVIDER: 'openai', ATTEST_OPENAI_API_KEY: 'sk' }),
    ).toBeDefined();
    for (const provider of ['anthropic', 'gemini', 'ollama', 'acme'])
      expect(() => providerConfigFromEnv({ ATTEST_JUDGE_PROVIDER: provider })).toThrow(
        /ATTEST_JUDGE_PROVIDER/,
      );
  });

  it('ATTEST_JUDGE_TIMEOUT_S is the per-call timeout in seconds unless ours is set', () => {
    expect(
      providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk', ATTEST_JUDGE_TIMEOUT_S: '5' })?.timeoutMs,
    ).toBe(5000);
    expect(
      providerConfigFromEnv({
        ATTEST_OPENAI_API_KEY: 'sk',
        ATTEST_JUDGE_TIMEOUT_S: '5',
        EVALS_ENGINE_PROVIDER_TIMEOUT_MS: '750',
      })?.timeoutMs,
    ).toBe(750);
    expect(() => providerConfigFromEnv({ ATTEST_OPENAI_API_KEY: 'sk', ATTEST_JUDGE_TIMEOUT_S: '0' })).toThrow(
      /ATTEST_JUDGE_TIMEOUT_S/,
    );
  });

  it('ATTEST_BUDGET_MAX_COST is the session soft-failure budget (the Attest engine counts soft failures with it)', () => {
    expect(engineOptionsFromEnv({ ATTEST_BUDGET_MAX_COST: '2' }, quiet).sessionMaxSoftFailures).toBe(2);
    expect(
      engineOptionsFromEnv(
        { ATTEST_BUDGET_MAX_COST: '2', EVALS_ENGINE_SESSION_MAX_SOFT_FAILURES: '5' },
        quiet,
      ).sessionMaxSoftFailures,
    ).toBe(5);
    expect(() => engineOptionsFromEnv({ ATTEST_BUDGET_MAX_COST: '0.5' }, quiet)).toThrow(
      /ATTEST_BUDGET_MAX_COST/,
    );
  });

  it('ATTEST_JUDGE_META_EVAL=true meta-evaluates every judge row', () => {
    const env = { ATTEST_OPENAI_API_KEY: 'sk' };
    expect(
      engineOptionsFromEnv({ ...env, ATTEST_JUDGE_META_EVAL: 'true' }, quiet).models?.judgeMetaEval,
    ).toBe(true);
    expect(engineOptionsFromEnv(env, quiet).models?.judgeMetaEval).toBeUndefined();
  });
});
