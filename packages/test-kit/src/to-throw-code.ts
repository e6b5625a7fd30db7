// The `toThrowCode(code)` matcher, for every package's coded error (ContractError, EvalbookError,
// PolicyError, AppError, CampaignError, …): each carries a `code`, and most an `issues[]` whose
// entries carry theirs. `expect(() => run()).toThrowCode('x')` passes when run() throws an error whose
// `code` is 'x' or one of whose issues has code 'x'; `await expect(promise).rejects.toThrowCode('x')`
// does the same for a rejection. It checks the code only: a test that also cares about the class or
// the message says so with its own assertion. Registered for every test by ./setup.ts; its type is
// declared in ./matchers.d.ts.
import type { MatcherState } from 'vitest';

/** What a matcher returns (vitest's SyncExpectationResult, which it does not export). */
interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** The codes a thrown value carries: its own `code`, then each issue's (strings only). */
export function codesOf(thrown: unknown): {
  readonly code: string | undefined;
  readonly issueCodes: string[];
} {
  if (typeof thrown !== 'object' || thrown === null) return { code: undefined, issueCodes: [] };
  const { code, issues } = thrown as { code?: unknown; issues?: unknown };
  const issueCodes = Array.isArray(issues)
    ? issues.flatMap((issue: unknown) => {
        const issueCode =
          typeof issue === 'object' && issue !== null ? (issue as { code?: unknown }).code : undefined;
        return typeof issueCode === 'string' ? [issueCode] : [];
      })
    : [];
  return { code: typeof code === 'string' ? code : undefined, issueCodes };
}

function describeThrown(thrown: unknown): string {
  if (!(thrown instanceof Error) && (typeof thrown !== 'object' || thrown === null))
    return `threw ${typeof thrown === 'string' ? JSON.stringify(thrown) : String(thrown)}, which carries no code`;
  const { code, issueCodes } = codesOf(thrown);
  const name = thrown instanceof Error ? thrown.name : 'an object';
  const message = thrown instanceof Error ? ` (${JSON.stringify(thrown.message)})` : '';
  const issues = issueCodes.length === 0 ? 'no issue codes' : `issue codes [${issueCodes.join(', ')}]`;
  return `threw ${name}${message} with code ${code ?? 'none'} and ${issues}`;
}

export function toThrowCode(this: MatcherState, received: unknown, expected: string): MatcherResult {
  if (typeof expected !== 'string' || expected === '')
    throw new TypeError(
      `toThrowCode: expected a code (a non-empty string), received ${JSON.stringify(expected)}`,
    );
  let thrown: unknown;
  let threw: boolean;
  if (this.promise === 'rejects') {
    // `.rejects` hands the matcher the rejection itself.
    thrown = received;
    threw = true;
  } else if (typeof received === 'function') {
    try {
      (received as () => unknown)();
      threw = false;
    } catch (error) {
      thrown = error;
      threw = true;
    }
  } else {
    throw new TypeError(
      'toThrowCode: expected a function to call (or `.rejects` on a promise), received ' + typeof received,
    );
  }
  const { code, issueCodes } = codesOf(thrown);
  const pass = threw && (code === expected || issueCodes.includes(expected));
  const what = this.promise === 'rejects' ? 'the promise to reject' : 'the function to throw';
  return {
    pass,
    message: () =>
      this.isNot
        ? `expected ${what} with no code ${expected} (as its code or an issue's), but it ${describeThrown(thrown)}`
        : `expected ${what} with code ${expected} (as its code or an issue's), but it ${threw ? describeThrown(thrown) : 'did not throw'}`,
  };
}
