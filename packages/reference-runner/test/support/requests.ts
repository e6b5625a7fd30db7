// Test support: eval-session requests for each behaviour.
import type { EvalSessionRequest } from '../../src/session/eval-session-request.js';

export const evalSessionRequest = (
  behaviour: EvalSessionRequest['behaviour'],
  attemptId = `attempt_${behaviour ?? 'default'}`,
): EvalSessionRequest => ({
  schema: 'paperclip-runner/eval-session-request/v1',
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
