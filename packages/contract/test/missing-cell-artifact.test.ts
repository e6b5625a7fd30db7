// Upstream's artifact for a missing campaign cell (its aggregate's syntheticAttempt, exact shape in
// test-kit's upstreamMissingCell) is a valid artifact of its own kind — no build, runnerd,
// providerSessionId or timing, usage {}, turn {status: failed} — and nothing else loosens: a row per
// change it must not have (each a coded issue at its pointer), and the same shape under any other
// class is refused as strictly as before (every session field it lacks).
import { describe, expect, it } from 'vitest';

import {
  evalSessionArtifactIssues,
  isMissingCellArtifact,
  parseEvalSessionArtifact,
} from '../src/eval-session-artifact.ts';
import { upstreamMissingCell } from '@paperclip-evals/test-kit/upstream-artifacts';

const issues = (value: unknown): string[] =>
  evalSessionArtifactIssues(value).map((issue) => `${issue.code} ${issue.path ?? ''}`);

describe("upstream's missing-cell artifact", () => {
  it('parses as is and says what it is', () => {
    const artifact = parseEvalSessionArtifact(JSON.stringify(upstreamMissingCell()));
    expect(isMissingCellArtifact(artifact)).toBe(true);
    expect(artifact.infrastructureFailure).toEqual({
      class: 'ci_cell_artifact_missing',
      category: 'campaign_orchestration',
      retryable: false,
    });
  });

  it('parses for an opencode cell (its version as providerVersion)', () => {
    const cell = upstreamMissingCell('live-opencode--case-02-c-missing', {
      model: 'openrouter/x',
      provider: 'opencode',
      driver: 'opencode_server',
      opencodeVersion: '1.18.34',
    });
    expect(issues(cell)).toEqual([]);
  });

  const change = (edit: (artifact: Record<string, unknown>) => void): Record<string, unknown> => {
    const artifact = upstreamMissingCell();
    edit(artifact);
    return artifact;
  };
  it.each([
    [
      'a build',
      (a: Record<string, unknown>) => (a.build = { package: { name: 'x', version: '1' } }),
      ['missing_cell_states_session /build'],
    ],
    [
      'a runnerd',
      (a: Record<string, unknown>) =>
        (a.runnerd = { path: '[withheld]', sha256: `sha256:${'a'.repeat(64)}` }),
      ['missing_cell_states_session /runnerd'],
    ],
    [
      'a provider session',
      (a: Record<string, unknown>) => (a.providerSessionId = null),
      ['missing_cell_states_session /providerSessionId'],
    ],
    [
      'timing',
      (a: Record<string, unknown>) =>
        (a.timing = {
          startedAt: '2026-11-30T12:00:00.000Z',
          finishedAt: '2026-11-30T12:00:00.000Z',
          durationMs: 0,
        }),
      ['missing_cell_states_session /timing'],
    ],
    [
      'a native bundle',
      (a: Record<string, unknown>) =>
        (a.nativeExecution = { path: 'n.json', sha256: `sha256:${'b'.repeat(64)}`, byteSize: 1 }),
      ['missing_cell_states_session /nativeExecution'],
    ],
    [
      'usage figures (cost must stay unknown)',
      (a: Record<string, unknown>) => (a.usage = { inputTokens: 1 }),
      ['schema_violation /usage'],
    ],
    [
      'a completed turn',
      (a: Record<string, unknown>) => (a.turn = { status: 'completed' }),
      ['schema_violation /turn/status'],
    ],
    [
      'a turn with more than its status',
      (a: Record<string, unknown>) => (a.turn = { status: 'failed', turnId: 't' }),
      ['schema_violation /turn/turnId'],
    ],
    ['no createdAt', (a: Record<string, unknown>) => delete a.createdAt, ['schema_violation /createdAt']],
    [
      'a createdAt that is no time',
      (a: Record<string, unknown>) => (a.createdAt = 'yesterday'),
      ['schema_violation /createdAt'],
    ],
    ['no usage', (a: Record<string, unknown>) => delete a.usage, ['schema_violation /usage']],
    [
      'another driver',
      (a: Record<string, unknown>) => (a.driver = 'opencode_server'),
      ['provider_driver_mismatch /driver'],
    ],
    [
      'a retryable class',
      (a: Record<string, unknown>) => ((a.infrastructureFailure as Record<string, unknown>).retryable = true),
      ['failure_class_mismatch /infrastructureFailure/retryable'],
    ],
    [
      'another category',
      (a: Record<string, unknown>) =>
        ((a.infrastructureFailure as Record<string, unknown>).category = 'eval_orchestration'),
      ['failure_class_mismatch /infrastructureFailure/category'],
    ],
  ])('refuses it with %s', (_name, edit, expected) => {
    expect(issues(change(edit))).toEqual(expected);
  });

  it('keeps every other artifact as strict as before: the same shape of another class lacks a session', () => {
    const other = change(
      (a) => ((a.infrastructureFailure as Record<string, unknown>).class = 'eval_orchestration_failure'),
    );
    (other.infrastructureFailure as Record<string, unknown>).category = 'eval_orchestration';
    const found = issues(other);
    for (const path of [
      '/build',
      '/runnerd',
      '/providerSessionId',
      '/timing',
      '/turn/turnId',
      '/turn/assistantText',
    ])
      expect(found).toContain(`schema_violation ${path}`);
    expect(found.some((entry) => entry.startsWith('schema_violation /usage/'))).toBe(true);
  });
});
