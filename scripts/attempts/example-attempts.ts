// The example attempts under fixtures/attempts/: valid bundles from the synthetic generator and one
// broken bundle per mutation-table row, derived from a valid one. Never edit the files by hand:
// run `pnpm run fixtures` and commit the result (a test fails when they drift from this code).
import { MUTATION_BASE_OPTIONS, MUTATIONS } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';

export const EXAMPLES_DIR = 'fixtures/attempts';

const VALID_EXAMPLES: Record<string, SyntheticAttemptOptions> = {
  'denied-tool-call': { ...MUTATION_BASE_OPTIONS, attemptId: 'attempt_denied_0001' },
  'solved-no-denials': {
    toolCalls: 3,
    deniedCalls: 0,
    attemptId: 'attempt_solved_0001',
    provenance: 'replay',
  },
  'run-failed': {
    toolCalls: 1,
    deniedCalls: 0,
    runTerminalState: 'failed',
    attemptId: 'attempt_failed_0001',
    provenance: 'live',
  },
  'unpriced-provider': { toolCalls: 1, deniedCalls: 0, costMicros: null, attemptId: 'attempt_unpriced_0001' },
  'incomplete-transcript': {
    toolCalls: 1,
    deniedCalls: 0,
    attemptId: 'attempt_incomplete_0001',
    transcriptOmission: 'provider stream closed before the final event was flushed',
  },
};

const pretty = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Every example file: path relative to the repo root → exact bytes. */
export function exampleAttemptFiles(): Map<string, Uint8Array | string> {
  const files = new Map<string, Uint8Array | string>();
  for (const [name, options] of Object.entries(VALID_EXAMPLES)) {
    files.set(`${EXAMPLES_DIR}/valid/${name}.json`, pretty(syntheticAttempt(options)));
  }
  const base = pretty(syntheticAttempt({ ...MUTATION_BASE_OPTIONS, attemptId: 'attempt_denied_0001' }));
  const index: Record<string, { rule: string; path: string }> = {};
  for (const row of MUTATIONS) {
    if (row.limits !== undefined) continue; // limit rows only break under a lowered limit
    let output: Uint8Array | string;
    if (row.mutateText !== undefined) output = row.mutateText(base);
    else {
      const bundle = JSON.parse(base) as Record<string, unknown>;
      row.mutate?.(bundle);
      output = pretty(bundle);
    }
    files.set(`${EXAMPLES_DIR}/invalid/${row.name}.json`, output);
    index[row.name] = { rule: row.rule, path: row.path };
  }
  files.set(`${EXAMPLES_DIR}/invalid.index.json`, pretty(index));
  return files;
}
