// The toThrowCode matcher (registered for every test by the test kit's setup file): it passes exactly
// when the thrown error's code, or one of its issues' codes, is the one asked for — on a real coded
// error, for a function and after `.rejects`, and its failure says what was thrown instead.
import { ContractError } from '@paperclip-evals/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { codesOf } from '../src/to-throw-code.ts';

const refusal = (): never => {
  throw new ContractError('paperclip_native_execution_invalid', 'invalid native execution bundle', [
    { code: 'json_syntax', path: '', message: 'not JSON' },
    { code: 'terminal_missing', path: '/events', message: 'no terminal' },
  ]);
};

/** The message of a failed expectation (vitest throws an AssertionError), or null when it held. */
function failureOf(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function asyncFailureOf(check: () => Promise<void>): Promise<string | null> {
  try {
    await check();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('toThrowCode on a function', () => {
  it("passes on the error's code and on each of its issues' codes", () => {
    expect(refusal).toThrowCode('paperclip_native_execution_invalid');
    expect(refusal).toThrowCode('json_syntax');
    expect(refusal).toThrowCode('terminal_missing');
  });

  it('fails on any other code, saying what was thrown', () => {
    expect(
      failureOf(() => {
        expect(refusal).toThrowCode('paperclip_output_unwritable');
      }),
    ).toBe(
      'expected the function to throw with code paperclip_output_unwritable (as its code or an issue\'s), but it threw ContractError ("invalid native execution bundle") with code paperclip_native_execution_invalid and issue codes [json_syntax, terminal_missing]',
    );
  });

  it('fails when nothing is thrown', () => {
    expect(
      failureOf(() => {
        expect(() => 1).toThrowCode('json_syntax');
      }),
    ).toMatch(/but it did not throw$/);
  });

  it('fails on an error without a code, and on a thrown non-error', () => {
    expect(
      failureOf(() => {
        expect(() => {
          throw new Error('plain');
        }).toThrowCode('json_syntax');
      }),
    ).toMatch(/threw Error \("plain"\) with code none and no issue codes$/);
    expect(
      failureOf(() => {
        expect(() => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless dependency may throw
          throw 'json_syntax';
        }).toThrowCode('json_syntax');
      }),
    ).toMatch(/threw "json_syntax", which carries no code$/);
  });

  it('negates: .not passes on another code or no throw, and fails on the code', () => {
    expect(refusal).not.toThrowCode('paperclip_output_unwritable');
    expect(() => 1).not.toThrowCode('json_syntax');
    expect(
      failureOf(() => {
        expect(refusal).not.toThrowCode('json_syntax');
      }),
    ).toMatch(/^expected the function to throw with no code json_syntax .* but it threw ContractError/);
  });

  it('refuses what it cannot check: a value that is not a function, an empty code', () => {
    expect(() => {
      expect(new Error('x')).toThrowCode('x');
    }).toThrow(/expected a function to call/);
    expect(() => {
      expect(refusal).toThrowCode('');
    }).toThrow(/expected a code/);
  });
});

describe('toThrowCode after .rejects', () => {
  const rejected = (): Promise<never> => Promise.resolve().then(refusal);

  it('passes on the rejection’s code or an issue’s, and fails on another', async () => {
    await expect(rejected()).rejects.toThrowCode('paperclip_native_execution_invalid');
    await expect(rejected()).rejects.toThrowCode('terminal_missing');
    await expect(rejected()).rejects.not.toThrowCode('paperclip_output_unwritable');
    expect(await asyncFailureOf(() => expect(rejected()).rejects.toThrowCode('digest_mismatch'))).toMatch(
      /^expected the promise to reject with code digest_mismatch .* but it threw ContractError/,
    );
  });

  it('fails when the promise resolves', async () => {
    expect(await asyncFailureOf(() => expect(Promise.resolve(1)).rejects.toThrowCode('x'))).not.toBeNull();
  });
});

describe('the rule, for any codes', () => {
  const code = fc.string({ minLength: 1, maxLength: 12 });

  it('passes exactly when the code is the error’s or one of its issues’', () => {
    fc.assert(
      fc.property(
        code,
        fc.array(fc.oneof(code, fc.constant(undefined), fc.integer())),
        code,
        (own, issueCodes, asked) => {
          const error = Object.assign(new Error('coded'), {
            code: own,
            issues: issueCodes.map((issueCode) => ({ code: issueCode, message: 'issue' })),
          });
          const throwing = (): never => {
            throw error;
          };
          const expected = own === asked || issueCodes.includes(asked);
          expect(
            failureOf(() => {
              expect(throwing).toThrowCode(asked);
            }) === null,
          ).toBe(expected);
          expect(
            failureOf(() => {
              expect(throwing).not.toThrowCode(asked);
            }) === null,
          ).toBe(!expected);
        },
      ),
    );
  });

  it('reads string codes only, in order', () => {
    expect(codesOf({ code: 7, issues: [{ code: 'a' }, { code: 1 }, null, 'b', { code: 'c' }] })).toEqual({
      code: undefined,
      issueCodes: ['a', 'c'],
    });
    expect(codesOf(null)).toEqual({ code: undefined, issueCodes: [] });
    expect(codesOf({ code: 'x', issues: 'not a list' })).toEqual({ code: 'x', issueCodes: [] });
  });
});
