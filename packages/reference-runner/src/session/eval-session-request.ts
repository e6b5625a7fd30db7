// The request `paperclip-runnerd eval-session --request <file>` reads: one attempt of one case
// under one config, with everything that makes it reproducible (digests, seed, start time).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

import { PaperclipRunnerError } from '../errors.js';
import { DETERMINISTIC_BEHAVIOURS } from '../testing/deterministic-driver.js';

import type { DeterministicBehaviour, DeterministicPricing } from '../testing/deterministic-driver.js';
import type { EstimatePricing } from './eval-session-cost.js';

export const EVAL_SESSION_REQUEST_SCHEMA_NAME = 'paperclip-runner/eval-session-request/v1';

export interface EvalSessionRequest {
  readonly schema: typeof EVAL_SESSION_REQUEST_SCHEMA_NAME;
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  readonly caseSha256: string;
  readonly configSha256: string;
  readonly seed: string;
  /** When the attempt starts (RFC 3339); every event time derives from it. */
  readonly startedAt: string;
  /** Default `succeed`. */
  readonly behaviour?: DeterministicBehaviour;
  /** The case's instruction to the agent. */
  readonly prompt?: string;
  readonly model?: string;
  /** The provider's price list; null: the provider reports no cost. Default: the driver's list. */
  readonly pricing?: DeterministicPricing | null;
  /**
   * A USD price list to estimate cost with (usage.estimatedCostNanodollars + pricingVersion).
   * Absent: no estimate, so an attempt without a provider receipt is unpriced.
   */
  readonly estimatePricing?: EstimatePricing;
  readonly budget?: { readonly maxTotalTokens: number };
}

const identifier = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' };
const digest = { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' };
const count = { type: 'integer', minimum: 0 };

/** The request's JSON Schema (draft 2020-12). Closed: unknown fields are refused. */
export const EVAL_SESSION_REQUEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://paperclip.dev/schemas/runner/eval-session-request/v1.json',
  title: EVAL_SESSION_REQUEST_SCHEMA_NAME,
  type: 'object',
  required: [
    'schema',
    'runId',
    'caseId',
    'configId',
    'attemptId',
    'caseSha256',
    'configSha256',
    'seed',
    'startedAt',
  ],
  properties: {
    schema: { const: EVAL_SESSION_REQUEST_SCHEMA_NAME },
    runId: identifier,
    caseId: identifier,
    configId: identifier,
    attemptId: identifier,
    caseSha256: digest,
    configSha256: digest,
    seed: { type: 'string', minLength: 1, maxLength: 200 },
    startedAt: { type: 'string', format: 'date-time' },
    behaviour: { enum: [...DETERMINISTIC_BEHAVIOURS] },
    prompt: { type: 'string', minLength: 1, maxLength: 4000 },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    pricing: {
      type: ['object', 'null'],
      required: ['currency', 'inputMicrosPerMillionTokens', 'outputMicrosPerMillionTokens'],
      properties: {
        currency: { type: 'string', minLength: 1, maxLength: 16 },
        inputMicrosPerMillionTokens: count,
        outputMicrosPerMillionTokens: count,
      },
      additionalProperties: false,
    },
    estimatePricing: {
      type: 'object',
      required: ['version', 'inputMicrosPerMillionTokens', 'outputMicrosPerMillionTokens'],
      properties: {
        version: { type: 'string', minLength: 1, maxLength: 100 },
        inputMicrosPerMillionTokens: count,
        outputMicrosPerMillionTokens: count,
      },
      additionalProperties: false,
    },
    budget: {
      type: 'object',
      required: ['maxTotalTokens'],
      properties: { maxTotalTokens: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
let validateRequest: ReturnType<Ajv2020['compile']> | undefined;

/** The request, unchanged, or `paperclip_eval_session_request_invalid` with every issue. */
export function parseEvalSessionRequest(value: unknown): EvalSessionRequest {
  if (validateRequest === undefined) {
    const ajv = new Ajv2020({ strict: true, allErrors: true, code: { optimize: false } });
    addFormats(ajv);
    validateRequest = ajv.compile(EVAL_SESSION_REQUEST_SCHEMA);
  }
  if (validateRequest(value)) return value as EvalSessionRequest;
  const issues = (validateRequest.errors ?? []).map((error) => ({
    code: `schema_${error.keyword}`,
    path: error.instancePath,
    message: error.message ?? error.keyword,
  }));
  throw new PaperclipRunnerError(
    'paperclip_eval_session_request_invalid',
    `invalid eval-session request: ${issues.map((issue) => `${issue.path || '/'} ${issue.message}`).join('; ')}`,
    issues,
  );
}
