// Which way a try ended, as the campaign reads it: stopped by the campaign (interrupted: never
// written, run again by a rerun), the timeout it enforces, or on its own (an exit code, a crash).
// Each row is one end of a session and, for each, whether the campaign was being interrupted.
import { describe, expect, it } from 'vitest';

import { INFRASTRUCTURE_FAILURE_CLASSES, evalSessionArtifactIssues } from '@paperclip-evals/contract';

import { packageBuildMetadata } from '@paperclip-evals/test-kit/fake-release';

import { INTERRUPTED_TRY, interruptionOf, readTry } from '../src/try-outcome.ts';

import type { KillableRunResult } from '@paperclip-evals/node';

const ended = (change: Partial<KillableRunResult>): KillableRunResult => ({
  exitCode: null,
  signal: null,
  timedOut: false,
  killed: false,
  spawnError: null,
  stderrTail: '',
  durationMs: 5,
  ...change,
});

describe('interruptionOf: a try the campaign stopped, and nothing else', () => {
  it.each([
    // [row, how it ended, the campaign is being interrupted, interrupted?]
    ['killed by the campaign (second Ctrl-C, SIGTERM)', { killed: true, signal: 'SIGKILL' }, true, true],
    ['killed, reaped after the grace (no signal reported)', { killed: true }, true, true],
    ["the interrupt's SIGTERM reached it too", { signal: 'SIGTERM' }, true, true],
    ["the interrupt's SIGINT reached it too", { signal: 'SIGINT' }, true, true],
    ['a closed terminal (SIGHUP) during the stop', { signal: 'SIGHUP' }, true, true],
    ['SIGTERM with no interrupt: it died on its own', { signal: 'SIGTERM' }, false, false],
    ['SIGKILL with no interrupt (the OOM killer)', { signal: 'SIGKILL' }, false, false],
    ['SIGKILL during a stop that killed nothing', { signal: 'SIGKILL' }, true, false],
    ['SIGSEGV during a stop', { signal: 'SIGSEGV' }, true, false],
    [
      'the timeout decided first, then the kill',
      { timedOut: true, killed: true, signal: 'SIGKILL' },
      true,
      false,
    ],
    ['the timeout we enforce', { timedOut: true, signal: 'SIGKILL' }, false, false],
    ['it exited (0) before the kill reached it', { killed: true, exitCode: 0 }, true, false],
    ['it exited 2 during a stop', { exitCode: 2 }, true, false],
    ['never started', { spawnError: 'ENOENT' }, true, false],
  ] as const)('%s', (_row, change, stopping, interrupted) => {
    expect(interruptionOf(ended(change as Partial<KillableRunResult>), stopping) !== null).toBe(interrupted);
  });
});

describe('what else a try that was not stopped is read as', () => {
  it.each([
    ['a signal nobody of the campaign sent', { signal: 'SIGTERM' }, 'eval_session_crashed'],
    ['the timeout we enforce', { timedOut: true, signal: 'SIGKILL' }, 'eval_session_timeout'],
    [
      'the timeout, then an interrupt during its grace',
      { timedOut: true, killed: true },
      'eval_session_timeout',
    ],
  ] as const)('%s: %s', async (_row, change, failureClass) => {
    const reading = await readTry(ended(change), '/nonexistent/a.json', 'a', 100);
    expect(reading.kind === 'infrastructure' ? reading.failure.class : null).toBe(failureClass);
  });
});

describe('an interrupted try is never an artifact', () => {
  it("is not a class of contract's table, so an artifact stating it is refused", () => {
    expect(Object.keys(INFRASTRUCTURE_FAILURE_CLASSES)).not.toContain(INTERRUPTED_TRY.class);
    const artifact = {
      schema: 'paperclip-runner/eval-session-artifact/v1',
      attemptId: 'a',
      infrastructureError: 'interrupted',
      infrastructureFailure: { ...INTERRUPTED_TRY, diagnostics: {} },
      build: packageBuildMetadata(),
      runnerd: { path: '[withheld]', sha256: `sha256:${'a'.repeat(64)}` },
      requestedModel: 'm',
      provider: 'paperclip_deterministic',
      driver: 'paperclip_deterministic_harness',
      providerVersion: null,
      providerSessionId: null,
      timing: { startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:01Z', durationMs: 1000 },
    };
    const issues = evalSessionArtifactIssues(artifact);
    expect(issues.map((entry) => entry.path)).toContain('/infrastructureFailure/class');
    // The same artifact with a class of the table is valid: the class alone is refused.
    expect(
      evalSessionArtifactIssues({
        ...artifact,
        infrastructureFailure: {
          class: 'eval_session_crashed',
          category: 'runner_infrastructure',
          retryable: true,
          diagnostics: {},
        },
      }),
    ).toEqual([]);
  });
});
