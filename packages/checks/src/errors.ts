// The checks engine's two kinds of failure, kept apart: RpcError is what goes out over the wire
// (a numeric JSON-RPC code plus data {error_type, retryable, detail}); EngineClientError is what
// happens only inside a client (timeout, closed pipe, a reply that does not answer the request) and
// is never serialised.

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

const ERROR_TYPE: Record<RpcErrorCode, string> = {
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

/** Only provider failures and timeouts are worth retrying unchanged. */
const RETRYABLE: ReadonlySet<number> = new Set([RPC_ERROR.providerError, RPC_ERROR.timeout]);

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

/** A failure answered over the wire. `detail` is actionable guidance for the caller. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  readonly data: RpcErrorData;

  constructor(
    readonly code: number,
    message: string,
    detail: string,
    options?: ErrorOptions & { readonly retryable?: boolean },
  ) {
    super(message, options);
    this.data = {
      error_type: (ERROR_TYPE as Partial<Record<number, string>>)[code] ?? 'ENGINE_ERROR',
      retryable: options?.retryable ?? RETRYABLE.has(code),
      detail,
    };
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Anything thrown while handling a request, as the error object of the reply. */
export function toWireError(error: unknown): WireError {
  if (error instanceof RpcError) return error.toWire();
  return new RpcError(
    RPC_ERROR.internalError,
    'Internal error',
    'The engine failed unexpectedly; its log on stderr has the cause. Please report it.',
  ).toWire();
}

export type EngineClientFailure =
  | 'request_timeout'
  | 'engine_restarted'
  | 'connection_closed'
  | 'spawn_failed'
  | 'protocol_violation'
  | 'reply_mismatch';

/** A failure inside the client; never sent over the wire. */
export class EngineClientError extends Error {
  override readonly name = 'EngineClientError';

  constructor(
    readonly code: EngineClientFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
