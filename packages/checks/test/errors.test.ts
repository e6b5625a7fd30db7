// The checks package's one coded error and its wire mapping, as a table: every ChecksError code is
// answered with exactly one JSON-RPC code (and error_type) or is local (never serialised as itself:
// -32603), no two codes share a JSON-RPC code, every code of the protocol has its ChecksError code,
// and a wire error read back by a client is the error the engine threw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ChecksError,
  RPC_CODE_OF,
  RPC_ERROR,
  fromWireError,
  isChecksError,
  toWireError,
} from '../src/errors.ts';

import type { ChecksErrorCode } from '../src/errors.ts';

/** The wire as the Attest engine's conformance suite knows it: JSON-RPC code and error_type, or local. */
const WIRE: Record<ChecksErrorCode, readonly [number, string] | null> = {
  parse_error: [-32_700, 'PARSE_ERROR'],
  invalid_request: [-32_600, 'INVALID_REQUEST'],
  method_not_found: [-32_601, 'METHOD_NOT_FOUND'],
  invalid_params: [-32_602, 'INVALID_PARAMS'],
  internal_error: [-32_603, 'INTERNAL_ERROR'],
  invalid_trace: [1001, 'INVALID_TRACE'],
  assertion_error: [1002, 'ASSERTION_ERROR'],
  provider_error: [2001, 'PROVIDER_ERROR'],
  engine_error: [3001, 'ENGINE_ERROR'],
  timeout: [3002, 'TIMEOUT'],
  session_error: [3003, 'SESSION_ERROR'],
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
const CODES = Object.keys(WIRE) as ChecksErrorCode[];
const INTERNAL = {
  code: -32_603,
  message: 'Internal error',
  data: {
    error_type: 'INTERNAL_ERROR',
    retryable: false,
    detail: 'The engine failed unexpectedly; its log on stderr has the cause. Please report it.',
  },
};

describe('the ChecksError codes and the wire', () => {
  it('are exactly the codes of the table (a code added to the union needs its row here)', () => {
    expect(Object.keys(RPC_CODE_OF).sort()).toEqual([...CODES].sort());
  });

  it.each(CODES)(
    '%s is answered with its one JSON-RPC code and error_type, or as an internal error',
    (code) => {
      const wire = WIRE[code];
      const error = new ChecksError(code, 'm', [], { detail: 'd' });
      expect(RPC_CODE_OF[code]).toBe(wire?.[0] ?? null);
      expect(toWireError(error)).toEqual(
        wire === null
          ? INTERNAL
          : {
              code: wire[0],
              message: 'm',
              data: {
                error_type: wire[1],
                retryable: code === 'provider_error' || code === 'timeout',
                detail: 'd',
              },
            },
      );
    },
  );

  it('gives every JSON-RPC code of the protocol exactly one ChecksError code', () => {
    const answered = CODES.map((code) => RPC_CODE_OF[code]).filter((rpc) => rpc !== null);
    expect(new Set(answered).size).toBe(answered.length);
    expect([...answered].sort()).toEqual(Object.values(RPC_ERROR).sort());
  });

  it('answers anything thrown that is not a ChecksError as an internal error', () => {
    for (const thrown of [new Error('boom'), new TypeError('x'), 'text', undefined, { code: 1001 }])
      expect(toWireError(thrown)).toEqual(INTERNAL);
  });

  it('reads back, in a client, the wire code, message, detail and retryable the engine sent', () => {
    const wireCodes = CODES.filter((code) => WIRE[code] !== null);
    fc.assert(
      fc.property(
        fc.constantFrom(...wireCodes),
        fc.string(),
        fc.string(),
        fc.boolean(),
        (code, message, detail, retryable) => {
          const sent = toWireError(new ChecksError(code, message, [], { detail, retryable }));
          const read = fromWireError(JSON.parse(JSON.stringify(sent)));
          expect(isChecksError(read, code)).toBe(true);
          expect({ message: read.message, detail: read.detail, retryable: read.retryable }).toEqual({
            message,
            detail,
            retryable,
          });
        },
      ),
    );
  });

  it.each([
    ['an error code the protocol does not define', { code: -32_000, message: 'Server error' }],
    ['a code that is not a number', { code: '1001', message: 'x' }],
    ['a message that is not a string', { code: 1001, message: 7 }],
    ['no error object at all', 'oops'],
  ])('reads %s as a protocol_violation', (_name, wire) => {
    expect(fromWireError(wire)).toMatchObject({ name: 'ChecksError', code: 'protocol_violation' });
  });
});
