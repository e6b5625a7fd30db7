// Test support: what tests expect of the package's one coded error (errors.ts), by code.
import { expect } from 'vitest';

import { EvalbookError } from '../../src/errors.ts';

import type { EvalbookErrorCode } from '../../src/errors.ts';

/** An EvalbookError of `code`, for `toThrow`, `rejects.toThrow` and `toEqual`. */
export function evalbookError(code: EvalbookErrorCode): EvalbookError {
  return expect.objectContaining({ name: 'EvalbookError', code }) as EvalbookError;
}

/** What `run` threw, which must be an EvalbookError (nothing thrown, or another error, fails the test). */
export function thrownBy(run: () => unknown): EvalbookError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EvalbookError);
    return error as EvalbookError;
  }
  throw new Error('expected an EvalbookError; nothing was thrown');
}
