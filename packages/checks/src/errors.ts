// The one coded error of the checks package, ChecksError, and its wire mapping. Two kinds of code
// share the union, kept apart by RPC_CODE_OF: a wire code is answered over JSON-RPC (its numeric
// code plus data {error_type, retryable, detail}, exactly as the Attest engine answers it); a local
// code (a bad spec, a provider call, the engine's settings, a client's timeout or closed pipe) never
// leaves the process as itself — over the wire it is an internal error (-32603).
import { CodedError, type Issue } from '@paperclip-evals/contract';

/** JSON-RPC 2.0 codes and the engine's own codes (seed 003, "Errors"). */
export const RPC_ERROR = {
  parseError: -32_700,
  invalidRequest: -32_600,
  methodNotFound: -32_601,
  invalidParams: -32_602,
  internalError: -32_603,
  invalidTrace: 1001,
  assertionError: 1002,
  providerError: 2001,
  engineError: 3001,
  timeout: 3002,
  sessionError: 3003,
} as const;

export type RpcErrorCode = (typeof RPC_ERROR)[keyof typeof RPC_ERROR];

export type ChecksErrorCode =
  // Answered over the wire (each is one JSON-RPC code, RPC_CODE_OF; its error_type is the code in capitals).
  /** -32700: a request line that is not strict JSON. */
  | 'parse_error'
  /** -32600: not a JSON-RPC 2.0 request object (or a line over the cap). */
  | 'invalid_request'
  /** -32601: a method the engine does not have. */
  | 'method_not_found'
  /** -32602: params that are not what the method's schema says. */
  | 'invalid_params'
  /** -32603: the engine failed unexpectedly (anything thrown that is not a wire code is answered so). */
  | 'internal_error'
  /** 1001: a trace that breaks a rule or a limit. */
  | 'invalid_trace'
  /** 1002: assertions the engine refuses as a batch (a duplicate or overlong id, fault_config). */
  | 'assertion_error'
  /** 2001: a model provider that is missing or failed. */
  | 'provider_error'
  /** 3001: the engine could not do its part (drift history unavailable, specs not recorded). */
  | 'engine_error'
  /** 3002: an evaluation over its time limit. */
  | 'timeout'
  /** 3003: a method called out of the session's order (before initialize, after shutdown, twice). */
  | 'session_error'
  // Local: never serialised as themselves.
  /** An assertion's spec no provider could make valid: its row is a hard_fail of failure_class invalid_spec. */
  | 'spec_invalid'
  /** A trace path (`steps[0].args`) the path language does not read; a spec field holding one is spec_invalid. */
  | 'trace_path_invalid'
  /** A setting in the environment the engine cannot use: it refuses to start. */
  | 'engine_config_invalid'
  /** A model provider refused the credentials (never retried). */
  | 'provider_call_auth'
  /** A model provider timed out, was unreachable or answered 429/5xx (retried). */
  | 'provider_call_unavailable'
  /** A model provider refused the call otherwise, or answered something unusable (not retried). */
  | 'provider_call_rejected'
  /** A drift history store that could not be read or written: query_drift answers it engine_error (3001). */
  | 'drift_history_unavailable'
  // Local to a client of an engine (EngineClient).
  /** No reply within the request's timeout: the engine is restarted. */
  | 'request_timeout'
  /** A request still pending when its engine was restarted after another request timed out. */
  | 'engine_restarted'
  /** The engine exited, or the client was closed, with the request pending. */
  | 'connection_closed'
  /** The engine process could not be started. */
  | 'spawn_failed'
  /** The engine wrote something that is not the protocol (a line not JSON or over the cap, an error code it does not define). */
  | 'protocol_violation'
  /** An evaluate_batch reply that does not answer exactly the assertions asked. */
  | 'reply_mismatch';

/** The JSON-RPC code each ChecksError code is answered with; null for a local code (answered -32603). */
export const RPC_CODE_OF: Readonly<Record<ChecksErrorCode, RpcErrorCode | null>> = {
  parse_error: RPC_ERROR.parseError,
  invalid_request: RPC_ERROR.invalidRequest,
  method_not_found: RPC_ERROR.methodNotFound,
  invalid_params: RPC_ERROR.invalidParams,
  internal_error: RPC_ERROR.internalError,
  invalid_trace: RPC_ERROR.invalidTrace,
  assertion_error: RPC_ERROR.assertionError,
  provider_error: RPC_ERROR.providerError,
  engine_error: RPC_ERROR.engineError,
  timeout: RPC_ERROR.timeout,
  session_error: RPC_ERROR.sessionError,
  spec_invalid: null,
  trace_path_invalid: null,
  engine_config_invalid: null,
  provider_call_auth: null,
  provider_call_unavailable: null,
  provider_call_rejected: null,
  drift_history_unavailable: null,
  request_timeout: null,
  engine_restarted: null,
  connection_closed: null,
  spawn_failed: null,
  protocol_violation: null,
  reply_mismatch: null,
};

/** data.error_type of each JSON-RPC code (the Attest engine's names). */
const ERROR_TYPE: Readonly<Record<RpcErrorCode, string>> = {
  [RPC_ERROR.parseError]: 'PARSE_ERROR',
  [RPC_ERROR.invalidRequest]: 'INVALID_REQUEST',
  [RPC_ERROR.methodNotFound]: 'METHOD_NOT_FOUND',
  [RPC_ERROR.invalidParams]: 'INVALID_PARAMS',
  [RPC_ERROR.internalError]: 'INTERNAL_ERROR',
  [RPC_ERROR.invalidTrace]: 'INVALID_TRACE',
  [RPC_ERROR.assertionError]: 'ASSERTION_ERROR',
  [RPC_ERROR.providerError]: 'PROVIDER_ERROR',
  [RPC_ERROR.engineError]: 'ENGINE_ERROR',
  [RPC_ERROR.timeout]: 'TIMEOUT',
  [RPC_ERROR.sessionError]: 'SESSION_ERROR',
};

/** Only provider failures and timeouts are worth retrying unchanged (data.retryable unless told). */
const RETRYABLE: ReadonlySet<ChecksErrorCode> = new Set<ChecksErrorCode>(['provider_error', 'timeout']);

export interface ChecksErrorOptions extends ErrorOptions {
  /** data.detail on the wire: what the caller can do about it. */
  readonly detail?: string;
  /** data.retryable on the wire; by default true for provider_error and timeout only. */
  readonly retryable?: boolean;
}

export class ChecksError extends CodedError<ChecksErrorCode> {
  override readonly name = 'ChecksError';
  /** Actionable guidance for the caller (data.detail when the error goes on the wire). */
  readonly detail: string;
  /** Whether the same request may succeed unchanged (data.retryable). */
  readonly retryable: boolean;

  constructor(
    code: ChecksErrorCode,
    message: string,
    issues: readonly Issue[] = [],
    options: ChecksErrorOptions = {},
  ) {
    super(code, message, issues, options);
    this.detail = options.detail ?? '';
    this.retryable = options.retryable ?? RETRYABLE.has(code);
  }
}

export function isChecksError(value: unknown, code?: ChecksErrorCode): value is ChecksError {
  return value instanceof ChecksError && (code === undefined || value.code === code);
}

export interface RpcErrorData {
  readonly error_type: string;
  readonly retryable: boolean;
  readonly detail: string;
}

export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: RpcErrorData;
}

/** The JSON-RPC code `error` is answered with, when it is a ChecksError of a wire code; undefined otherwise. */
export function rpcCodeOf(error: unknown): RpcErrorCode | undefined {
  return isChecksError(error) ? (RPC_CODE_OF[error.code] ?? undefined) : undefined;
}

/** Anything thrown while handling a request, as the error object of the reply. */
export function toWireError(error: unknown): WireError {
  if (isChecksError(error)) {
    const code = RPC_CODE_OF[error.code];
    if (code !== null) return wireOf(error, code);
  }
  const unexpected = new ChecksError('internal_error', 'Internal error', [], {
    detail: 'The engine failed unexpectedly; its log on stderr has the cause. Please report it.',
  });
  return wireOf(unexpected, RPC_ERROR.internalError);
}

function wireOf(error: ChecksError, code: RpcErrorCode): WireError {
  return {
    code,
    message: error.message,
    data: { error_type: ERROR_TYPE[code], retryable: error.retryable, detail: error.detail },
  };
}

const CODE_OF_RPC: ReadonlyMap<number, ChecksErrorCode> = new Map(
  Object.entries(RPC_CODE_OF).flatMap(([code, rpc]) =>
    rpc === null ? [] : [[rpc, code as ChecksErrorCode]],
  ),
);

/**
 * An engine's error reply as the ChecksError a client rejects with: its code read back from the
 * JSON-RPC code (detail and retryable from data); an error object that is not the protocol's (an
 * undefined code, a message that is not a string) is a protocol_violation.
 */
export function fromWireError(error: unknown): ChecksError {
  const wire = (typeof error === 'object' && error !== null ? error : {}) as Partial<
    Record<keyof WireError, unknown>
  >;
  const code = typeof wire.code === 'number' ? CODE_OF_RPC.get(wire.code) : undefined;
  if (code === undefined || typeof wire.message !== 'string') {
    // `error` is a parsed reply's value: JSON, so JSON.stringify gives its text (and undefined only for undefined).
    const shown = error === undefined ? 'undefined' : JSON.stringify(error).slice(0, 200);
    return new ChecksError(
      'protocol_violation',
      `engine answered an error the protocol does not define: ${shown}`,
    );
  }
  const data = (typeof wire.data === 'object' && wire.data !== null ? wire.data : {}) as Partial<
    Record<keyof RpcErrorData, unknown>
  >;
  return new ChecksError(code, wire.message, [], {
    detail: typeof data.detail === 'string' ? data.detail : '',
    retryable: data.retryable === true,
  });
}
