// The types of the matchers ./setup.ts registers; every test project's tsconfig includes this file.
import 'vitest';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars -- must match vitest's own declaration to merge with it
  interface Matchers<T = any> {
    /**
     * The received function throws (or, after `.rejects`, the promise rejects with) an error whose
     * `code`, or the `code` of one of whose `issues[]`, is `code`.
     */
    toThrowCode(code: string): void;
  }
}
