// `evals run --pass-env NAME`: the rule for what the eval sessions' environment is made of. A name
// ([A-Z_][A-Z0-9_]*) set in evals' environment passes with its value; anything else given is a usage
// error that never echoes the argument (it may be a value pasted in by mistake); a name not set is
// a usage error naming it. Property tests over generated names, values and arguments.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { passedEnvironment } from '../src/commands/campaign.ts';
import { UsageError } from '../src/exit-codes.ts';

const NAME = /^[A-Z_][A-Z0-9_]*$/;
const name = fc.stringMatching(NAME);
const notName = fc.string({ minLength: 0, maxLength: 40 }).filter((text) => !NAME.test(text));
const value = fc.string({ minLength: 1, maxLength: 60 });

const refusal = (run: () => unknown): UsageError => {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('--pass-env', () => {
  it('passes exactly the named variables, with their values, and nothing else of the environment', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value), fc.dictionary(name, value), (named, other) => {
        const from = { ...other, ...named };
        expect(passedEnvironment(Object.keys(named), from)).toEqual(named);
      }),
    );
  });

  it('refuses anything that is not a name, by its position only: the message says nothing of it or of any value', () => {
    fc.assert(
      fc.property(fc.array(name), notName, fc.array(name), value, (before, given, after, secret) => {
        const from = Object.fromEntries([...before, ...after].map((entry) => [entry, secret]));
        const error = refusal(() => passedEnvironment([...before, given, ...after], from));
        expect(error.message).toContain(`#${before.length + 1}`);
        // The same message whatever the argument and the values are: neither can be in it.
        const other = refusal(() =>
          passedEnvironment(
            [...before, 'not a name', ...after],
            Object.fromEntries(Object.keys(from).map((entry) => [entry, 'other'])),
          ),
        );
        expect(error.message).toBe(other.message);
      }),
    );
  });

  it('refuses a name that is not set, naming it', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 4 }), (names) => {
        const [missing, ...set] = names as [string, ...string[]];
        const error = refusal(() =>
          passedEnvironment(names, Object.fromEntries(set.map((entry) => [entry, 'sk-live-0123456789']))),
        );
        expect(error.message).toContain(`--pass-env ${missing}`);
        expect(error.message).not.toContain('sk-live-0123456789');
      }),
    );
  });

  it.each([['openai_api_key'], ['sk-live-abcdef0123456789'], ['A=B'], [''], ['1ABC']])(
    'refuses %j',
    (given) => {
      expect(() => passedEnvironment([given], { [given]: 'x' })).toThrow(UsageError);
    },
  );
});
