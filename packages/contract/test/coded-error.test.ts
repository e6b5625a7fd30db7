// CodedError, the one base of every package's coded error: a subclass keeps its own name and codes,
// carries its issues (none by default) and its cause, and is told apart from another package's by
// instanceof — what the CLI's exit-code table and every `isXError` guard rely on.
import { describe, expect, it } from 'vitest';
import { CodedError, ContractError } from '../src/errors.ts';

class OneError extends CodedError<'one_a' | 'one_b'> {
  override readonly name = 'OneError';
}
class OtherError extends CodedError<'other'> {
  override readonly name = 'OtherError';
}

describe('CodedError', () => {
  it('gives a subclass its code, message, issues and cause, under its own name', () => {
    const cause = new Error('below');
    const issues = [{ code: 'x', message: 'm', path: '/a' }];
    const error = new OneError('one_b', 'failed', issues, { cause });
    expect(error).toMatchObject({ name: 'OneError', code: 'one_b', message: 'failed', issues, cause });
    expect(String(error)).toBe('OneError: failed');
    expect(error.stack).toMatch(/^OneError: failed/);
  });

  it('has no issues unless given, and no cause', () => {
    const error = new OtherError('other', 'x');
    expect(error.issues).toEqual([]);
    expect('cause' in error).toBe(false);
  });

  it("keeps one package's error apart from another's", () => {
    const one = new OneError('one_a', 'x');
    expect(one).toBeInstanceOf(OneError);
    expect(one).toBeInstanceOf(CodedError);
    expect(one).toBeInstanceOf(Error);
    expect(one).not.toBeInstanceOf(OtherError);
    expect(one).not.toBeInstanceOf(ContractError);
    expect(new ContractError('paperclip_output_unwritable', 'x')).not.toBeInstanceOf(OneError);
  });

  it('is what toThrowCode reads', () => {
    expect(() => {
      throw new ContractError('paperclip_canonical_json_invalid', 'x', [
        { code: 'lone_surrogate', message: 'm' },
      ]);
    }).toThrowCode('lone_surrogate');
  });
});
