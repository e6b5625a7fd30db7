// The model provider behind layers 5 and 6 and generate_user_message: any OpenAI-compatible HTTP
// API (POST {base}/chat/completions and {base}/embeddings), configured from the environment.
// One call here is one HTTP request; retries, budgets and usage live in model-gateway.ts. The API key
// (and any credential in the base URL) is never echoed: every message is masked (maskSecrets), the
// provider's error bodies and the network errors that quote a URL included.
import { displayLocator, maskSecrets, secretsIn } from '@paperclip-evals/contract';

import { ChecksError } from './errors.js';

import type { request } from 'undici';
import type { ChecksErrorCode } from './errors.js';

export const PROVIDER_ENV = {
  baseUrl: 'EVALS_ENGINE_PROVIDER_BASE_URL',
  apiKey: 'EVALS_ENGINE_PROVIDER_API_KEY',
  judgeModel: 'EVALS_ENGINE_JUDGE_MODEL',
  embeddingModel: 'EVALS_ENGINE_EMBEDDING_MODEL',
  timeoutMs: 'EVALS_ENGINE_PROVIDER_TIMEOUT_MS',
  maxRetries: 'EVALS_ENGINE_PROVIDER_MAX_RETRIES',
  retryDelayMs: 'EVALS_ENGINE_PROVIDER_RETRY_DELAY_MS',
  prices: 'EVALS_ENGINE_MODEL_PRICES',
  sessionMaxJudgeCalls: 'EVALS_ENGINE_SESSION_MAX_JUDGE_CALLS',
  sessionMaxCostUsd: 'EVALS_ENGINE_SESSION_MAX_COST_USD',
} as const;

/**
 * The Attest engine's own settings, honoured beside ours so that swapping engines needs no new
 * ones (ours win where both are set): an OpenAI key alone configures https://api.openai.com/v1.
 */
export const ATTEST_PROVIDER_ENV = {
  openAiApiKey: 'ATTEST_OPENAI_API_KEY',
  judgeProvider: 'ATTEST_JUDGE_PROVIDER',
  judgeModel: 'ATTEST_JUDGE_MODEL',
  embeddingProvider: 'ATTEST_EMBEDDING_PROVIDER',
  judgeTimeoutSeconds: 'ATTEST_JUDGE_TIMEOUT_S',
} as const;
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** The Attest engine's models when its OpenAI key configures the provider and no model is named. */
export const ATTEST_DEFAULT_JUDGE_MODEL = 'gpt-4.1';
export const ATTEST_DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

export const DEFAULT_PROVIDER_TIMEOUT_MS = 30_000;
export const DEFAULT_PROVIDER_MAX_RETRIES = 2;
export const DEFAULT_PROVIDER_RETRY_DELAY_MS = 250;

/** USD per million tokens. A model missing from the table is unpriced: counted, never costed at 0. */
export interface ModelPrice {
  readonly input_usd_per_mtok: number;
  readonly output_usd_per_mtok: number;
  readonly cached_input_usd_per_mtok?: number;
}

export interface ProviderConfig {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly judgeModel?: string;
  readonly embeddingModel?: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryDelayMs: number;
  readonly prices: Readonly<Record<string, ModelPrice>>;
}

export interface SessionBudget {
  readonly maxJudgeCalls?: number;
  readonly maxCostUsd?: number;
}

/** A setting in the environment that cannot be used (ChecksError engine_config_invalid): the engine refuses to start. */
export function engineConfigError(message: string, options?: ErrorOptions): ChecksError {
  return new ChecksError('engine_config_invalid', message, [], options);
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The provider the environment configures, or undefined when neither a base URL nor an Attest
 * OpenAI key is set. Throws engine_config_invalid for a setting that cannot be used.
 */
export function providerConfigFromEnv(env: Env): ProviderConfig | undefined {
  const setting = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const judgeProvider = setting(ATTEST_PROVIDER_ENV.judgeProvider);
  if (judgeProvider !== undefined && judgeProvider !== 'openai') {
    throw engineConfigError(
      `${ATTEST_PROVIDER_ENV.judgeProvider}=${JSON.stringify(judgeProvider)} is not supported: use openai (any OpenAI-compatible API: ${PROVIDER_ENV.baseUrl})`,
    );
  }
  const embeddingProvider = setting(ATTEST_PROVIDER_ENV.embeddingProvider) ?? 'auto';
  if (!['auto', 'openai', 'onnx'].includes(embeddingProvider)) {
    throw engineConfigError(
      `${ATTEST_PROVIDER_ENV.embeddingProvider} must be auto, openai or onnx; received ${JSON.stringify(embeddingProvider)}`,
    );
  }
  const attestKey = setting(ATTEST_PROVIDER_ENV.openAiApiKey);
  const ownBaseUrl = setting(PROVIDER_ENV.baseUrl);
  const baseUrl = ownBaseUrl ?? (attestKey === undefined ? undefined : OPENAI_BASE_URL);
  if (baseUrl === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw engineConfigError(
      `${PROVIDER_ENV.baseUrl} is not a URL: ${JSON.stringify(displayLocator(baseUrl))}`,
      {
        cause,
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw engineConfigError(`${PROVIDER_ENV.baseUrl} must be an http(s) URL`);
  }
  // Configured the Attest way (its key, no base URL of ours): its default models too.
  const attestWay = ownBaseUrl === undefined;
  const apiKey = setting(PROVIDER_ENV.apiKey) ?? attestKey;
  const judgeModel =
    setting(PROVIDER_ENV.judgeModel) ??
    setting(ATTEST_PROVIDER_ENV.judgeModel) ??
    (attestWay ? ATTEST_DEFAULT_JUDGE_MODEL : undefined);
  // ONNX embeddings are not built into this engine (nor into the Attest engine's default build).
  const embeddingModel =
    setting(PROVIDER_ENV.embeddingModel) ??
    (attestWay && embeddingProvider !== 'onnx' ? ATTEST_DEFAULT_EMBEDDING_MODEL : undefined);
  const judgeTimeoutSeconds = setting(ATTEST_PROVIDER_ENV.judgeTimeoutSeconds);
  const timeoutMs =
    setting(PROVIDER_ENV.timeoutMs) === undefined && judgeTimeoutSeconds !== undefined
      ? wholeNumber(env, ATTEST_PROVIDER_ENV.judgeTimeoutSeconds, 0, 1) * 1000
      : wholeNumber(env, PROVIDER_ENV.timeoutMs, DEFAULT_PROVIDER_TIMEOUT_MS, 1);
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(judgeModel === undefined ? {} : { judgeModel }),
    ...(embeddingModel === undefined ? {} : { embeddingModel }),
    timeoutMs,
    maxRetries: wholeNumber(env, PROVIDER_ENV.maxRetries, DEFAULT_PROVIDER_MAX_RETRIES, 0),
    retryDelayMs: wholeNumber(env, PROVIDER_ENV.retryDelayMs, DEFAULT_PROVIDER_RETRY_DELAY_MS, 0),
    prices: pricesFromEnv(env),
  };
}

export function sessionBudgetFromEnv(env: Env): SessionBudget {
  const calls = env[PROVIDER_ENV.sessionMaxJudgeCalls];
  const cost = env[PROVIDER_ENV.sessionMaxCostUsd];
  const maxCost = cost === undefined || cost === '' ? undefined : Number(cost);
  if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost >= 0)) {
    throw engineConfigError(`${PROVIDER_ENV.sessionMaxCostUsd} must be a number ≥ 0`);
  }
  return {
    ...(calls === undefined || calls === ''
      ? {}
      : { maxJudgeCalls: wholeNumber(env, PROVIDER_ENV.sessionMaxJudgeCalls, 0, 0) }),
    ...(maxCost === undefined ? {} : { maxCostUsd: maxCost }),
  };
}

function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw engineConfigError(`${name} must be a whole number ≥ ${min}`);
  return value;
}

function pricesFromEnv(env: Env): Record<string, ModelPrice> {
  const text = env[PROVIDER_ENV.prices];
  if (text === undefined || text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw engineConfigError(`${PROVIDER_ENV.prices} is not JSON`, { cause });
  }
  const isPrice = (value: unknown): value is ModelPrice => {
    if (typeof value !== 'object' || value === null) return false;
    const price = value as Record<string, unknown>;
    const rate = (field: string, required: boolean): boolean =>
      price[field] === undefined ? !required : typeof price[field] === 'number' && price[field] >= 0;
    return (
      rate('input_usd_per_mtok', true) &&
      rate('output_usd_per_mtok', true) &&
      rate('cached_input_usd_per_mtok', false)
    );
  };
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every(isPrice)
  ) {
    throw engineConfigError(
      `${PROVIDER_ENV.prices} must map model names to {"input_usd_per_mtok": n, "output_usd_per_mtok": n, "cached_input_usd_per_mtok"?: n}`,
    );
  }
  return parsed as Record<string, ModelPrice>;
}

export interface TokenUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_tokens: number;
}

export interface ProviderReply<T> {
  readonly value: T;
  readonly usage: TokenUsage;
}

/** auth: credentials refused (never retried); unavailable: timeout, network, 429/5xx (retried); rejected: other refusals and unusable replies. */
export type ProviderFailureKind = 'auth' | 'unavailable' | 'rejected';

/** A failed provider call: ChecksError provider_call_auth, provider_call_unavailable or provider_call_rejected. */
export function providerCallError(
  kind: ProviderFailureKind,
  message: string,
  options?: ErrorOptions,
): ChecksError {
  return new ChecksError(`provider_call_${kind}`, message, [], options);
}

const FAILURE_KIND_OF: Partial<Record<ChecksErrorCode, ProviderFailureKind>> = {
  provider_call_auth: 'auth',
  provider_call_unavailable: 'unavailable',
  provider_call_rejected: 'rejected',
};

/** The kind of failed provider call a ChecksError code is (providerCallError), or undefined for any other code. */
export function providerFailureOf(code: ChecksErrorCode): ProviderFailureKind | undefined {
  return FAILURE_KIND_OF[code];
}

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly jsonReply?: boolean;
}

/** What layers 5 and 6 need from a provider; tests may supply their own. */
export interface ModelProvider {
  chat(call: ChatRequest, signal: AbortSignal): Promise<ProviderReply<string>>;
  embed(model: string, texts: readonly string[], signal: AbortSignal): Promise<ProviderReply<number[][]>>;
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly #secrets: readonly string[];

  constructor(private readonly config: Pick<ProviderConfig, 'baseUrl' | 'apiKey' | 'timeoutMs'>) {
    this.#secrets = [...(config.apiKey === undefined ? [] : [config.apiKey]), ...secretsIn(config.baseUrl)];
  }

  /** A message about a call, with the key and the base URL's credentials masked. */
  #masked(text: string): string {
    return maskSecrets(text, this.#secrets);
  }

  async chat(call: ChatRequest, signal: AbortSignal): Promise<ProviderReply<string>> {
    const body = await this.post('/chat/completions', signal, {
      model: call.model,
      messages: call.messages,
      ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
      ...(call.maxTokens === undefined ? {} : { max_tokens: call.maxTokens }),
      ...(call.jsonReply === true ? { response_format: { type: 'json_object' } } : {}),
    });
    const choices = (body as { choices?: unknown }).choices;
    const content = Array.isArray(choices)
      ? (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content
      : undefined;
    if (typeof content !== 'string')
      throw providerCallError('rejected', 'chat reply has no choices[0].message.content string');
    return { value: content, usage: usageOf(body) };
  }

  async embed(
    model: string,
    texts: readonly string[],
    signal: AbortSignal,
  ): Promise<ProviderReply<number[][]>> {
    const body = await this.post('/embeddings', signal, { model, input: texts });
    const data = (body as { data?: unknown }).data;
    const vectors = Array.isArray(data) ? data.map((item: { embedding?: unknown }) => item.embedding) : [];
    const isVector = (value: unknown): value is number[] =>
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((x) => typeof x === 'number' && Number.isFinite(x));
    if (vectors.length !== texts.length || !vectors.every(isVector)) {
      throw providerCallError('rejected', `embedding reply does not hold ${texts.length} numeric vectors`);
    }
    return { value: vectors, usage: usageOf(body) };
  }

  private async post(path: string, signal: AbortSignal, payload: unknown): Promise<unknown> {
    // Imported on the first call, not with this module: every `evals` process loads the checks
    // engine, few call a provider, and undici's import alone is ~0.13 s of CPU.
    const http = await import('undici');
    let reply: Awaited<ReturnType<typeof request>>;
    try {
      reply = await http.request(`${this.config.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.config.apiKey === undefined ? {} : { authorization: `Bearer ${this.config.apiKey}` }),
        },
        body: JSON.stringify(payload),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.config.timeoutMs)]),
      });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw providerCallError(
        'unavailable',
        this.#masked(`provider unreachable or too slow: ${(cause as Error).message}`),
        { cause },
      );
    }
    let text: string;
    try {
      text = await reply.body.text();
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw providerCallError(
        'unavailable',
        this.#masked(`provider reply cut short: ${(cause as Error).message}`),
        {
          cause,
        },
      );
    }
    const status = reply.statusCode;
    if (status === 401 || status === 403)
      throw providerCallError('auth', `provider refused the credentials (HTTP ${status})`);
    if (status === 429 || status >= 500)
      throw providerCallError('unavailable', `provider answered HTTP ${status}`);
    if (status < 200 || status >= 300)
      throw providerCallError(
        'rejected',
        `provider answered HTTP ${status}: ${this.#masked(text).slice(0, 200)}`,
      );
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw providerCallError('rejected', 'provider reply is not JSON', { cause });
    }
  }
}

function usageOf(body: unknown): TokenUsage {
  const usage = (body as { usage?: Record<string, unknown> }).usage ?? {};
  const count = (value: unknown): number =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
  const details = usage.prompt_tokens_details as Record<string, unknown> | undefined;
  return {
    input_tokens: count(usage.prompt_tokens),
    output_tokens: count(usage.completion_tokens),
    cached_tokens: count(details?.cached_tokens),
  };
}
