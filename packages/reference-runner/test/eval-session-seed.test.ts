// The request's session.seed as upstream types it (CreateCapabilityLiveSessionInput.seed:
// CapabilityFixtureSeed | CapabilityFixtureState, an object) is taken, as is our text seed; any
// other value is refused with session_seed_invalid at /session/seed.
import { describe, expect, it } from 'vitest';

import { parseEvalSessionRequest } from '../src/cli/eval-session-contract.js';
import { PaperclipRunnerError } from '../src/errors.js';
import { evalSessionRequest } from '@paperclip-evals/test-kit/eval-session-request';

const request = (seed: unknown): Record<string, unknown> =>
  evalSessionRequest(
    {
      attemptId: 'attempt_seed',
      runnerd: { path: '/nonexistent/runnerd', sha256: `sha256:${'c'.repeat(64)}` },
      runId: 'run_seed',
    },
    { session: { runId: 'run_seed', seed } },
  );

const codes = (value: unknown): string[] => {
  try {
    parseEvalSessionRequest(value);
  } catch (error) {
    if (error instanceof PaperclipRunnerError)
      return error.issues.map((issue) => `${issue.code} ${issue.path}`);
    throw error;
  }
  return [];
};

describe('session.seed', () => {
  it("takes upstream's fixture seed object and our text seed", () => {
    expect(codes(request({ epochMs: 1_767_225_600_000, company: { name: 'Seeded Co' } }))).toEqual([]);
    expect(codes(request({ schema: 'paperclip.capability.mock-state.v1' }))).toEqual([]);
    expect(codes(request('seed-7'))).toEqual([]);
  });

  it.each([[''], [7], [['a']], [null], [true]])('refuses %j', (seed) => {
    expect(codes(request(seed))).toEqual(['session_seed_invalid /session/seed']);
  });
});
