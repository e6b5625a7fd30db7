// Test support: one attempt's input to the eval-session logic, for each behaviour.
import type { NativeAttemptInput } from '../../src/session/eval-session.js';

export const evalSessionRequest = (
  behaviour: NativeAttemptInput['behaviour'],
  attemptId = `attempt_${behaviour ?? 'default'}`,
): NativeAttemptInput => ({
  runId: 'run_eval',
  caseId: 'case_summary',
  configId: 'config_a',
  attemptId,
  caseSha256: `sha256:${'a'.repeat(64)}`,
  configSha256: `sha256:${'b'.repeat(64)}`,
  seed: 'seed-7',
  startedAt: '2026-06-01T08:00:00.000Z',
  ...(behaviour === undefined ? {} : { behaviour }),
});
