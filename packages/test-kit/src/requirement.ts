// Test support: tests that need something from outside the repository (upstream contract data in
// ../shared beside the checkout, a Chromium binary). They run when it is there. When it is missing they
// are skipped, with one notice naming what is missing and what is skipped — except under CI (the `CI`
// environment variable set), where the missing thing is a failing test, so CI never passes by skipping.
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';

/** Whether this run is CI's (`CI` set and not empty): there a missing requirement fails. */
export const IN_CI = (process.env.CI ?? '') !== '';

export interface Requirement {
  /** `import.meta.url` of the test file (named in the notice). */
  readonly testFile: string;
  /** What is skipped without it, e.g. "the comparisons with upstream's PRP schemas". */
  readonly skips: string;
  /** Whether it is there. */
  readonly present: boolean;
  /** What is missing and how to get it, e.g. "upstream data not found at …: put shared/ beside the checkout". */
  readonly missing: string;
}

/**
 * Call at the top level of a test file; returns `present`, for `describe.skipIf(!present)`. When
 * missing: under CI registers one failing test saying what is missing; elsewhere prints one notice.
 */
export function needs(requirement: Requirement): boolean {
  if (requirement.present) return true;
  const file = basename(fileURLToPath(requirement.testFile));
  if (IN_CI)
    it(`needs ${requirement.skips} to run (CI is set, so missing is a failure)`, () => {
      throw new Error(`${file}: ${requirement.missing}`);
    });
  else console.warn(`${file}: skipped ${requirement.skips}: ${requirement.missing}`);
  return false;
}
