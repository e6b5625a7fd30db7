// Upstream's eval-session writes two views of the session into its success artifact: `devtools`
// (CapabilityDevtoolsSnapshot) and `issueThread` (CapabilityIssueThreadSnapshot). Evals' parser keeps
// both whole (additive members included) and refuses a malformed one, each row one change with its
// code at its pointer (devtools_invalid / issue_thread_invalid); the shapes are upstream's types
// (packages/paperclip-runner/src/devtools/index.ts, src/issue-thread/types.ts). A missing cell's
// artifact keeps the aggregate's placeholder devtools ({revisions: []}) and nothing more.
import { describe, expect, it } from 'vitest';

import { evalSessionArtifactIssues, parseEvalSessionArtifact } from '../src/eval-session-artifact.ts';
import {
  upstreamFailure,
  upstreamMissingCell,
  upstreamSuccess,
} from '@paperclip-evals/test-kit/upstream-artifacts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   each row pokes at one arbitrary place of an artifact. */
type Artifact = Record<string, any>;

const issues = (value: unknown): string[] =>
  evalSessionArtifactIssues(value).map((issue) => `${issue.code} ${issue.path ?? ''}`);

const changed = (edit: (artifact: Artifact) => void, base: () => Artifact = () => upstreamSuccess('a1')) => {
  const artifact = structuredClone(base());
  edit(artifact);
  return artifact;
};

describe("the session's devtools and issueThread views", () => {
  it('are kept whole, additive members included', () => {
    const artifact = changed((a) => {
      a.devtools.extra = { kept: true };
      a.issueThread.turns[0].items.push({ kind: 'provider_activity', id: 'p1', at: 'x', family: 'plan' });
      a.issueThread.later = 1;
    });
    const parsed = parseEvalSessionArtifact(JSON.stringify(artifact));
    expect(parsed.devtools).toEqual(artifact.devtools);
    expect(parsed.issueThread).toEqual(artifact.issueThread);
  });

  it('may be absent (an artifact is still valid without them)', () => {
    expect(
      issues(
        changed((a) => {
          delete a.devtools;
          delete a.issueThread;
        }),
      ),
    ).toEqual([]);
  });

  const rows: [string, (artifact: Artifact) => unknown, string][] = [
    ['devtools not an object', (a) => (a.devtools = []), 'devtools_invalid /devtools'],
    ['another devtools schema', (a) => (a.devtools.schema = 'x.v2'), 'devtools_invalid /devtools/schema'],
    [
      'devtools without currentRevision',
      (a) => delete a.devtools.currentRevision,
      'devtools_invalid /devtools/currentRevision',
    ],
    [
      'a fractional revision',
      (a) => (a.devtools.currentRevision = 1.5),
      'devtools_invalid /devtools/currentRevision',
    ],
    ['revisions not a list', (a) => (a.devtools.revisions = {}), 'devtools_invalid /devtools/revisions'],
    [
      'a revision without state',
      (a) => delete a.devtools.revisions[0].state,
      'devtools_invalid /devtools/revisions/0/state',
    ],
    [
      'a revision turnId a number',
      (a) => (a.devtools.revisions[0].turnId = 1),
      'devtools_invalid /devtools/revisions/0/turnId',
    ],
    [
      'a protocol record without its boundary',
      (a) => a.devtools.protocol.push({ id: 'e', at: 't', turnId: null, event: 'session', detail: {} }),
      'devtools_invalid /devtools/protocol/0/boundary',
    ],
    ['no runtime', (a) => delete a.devtools.runtime, 'devtools_invalid /devtools/runtime'],
    ['no authority', (a) => delete a.devtools.authority, 'devtools_invalid /devtools/authority'],
    [
      'a provider trace of another status',
      (a) => (a.devtools.providerTrace = { status: 'done', expiresAt: 't', frames: [], interpretations: [] }),
      'devtools_invalid /devtools/providerTrace',
    ],
    ['issueThread a string', (a) => (a.issueThread = 'x'), 'issue_thread_invalid /issueThread'],
    [
      'another issue-thread schema',
      (a) => (a.issueThread.schema = 'paperclip.capability.issue-thread-view.v2'),
      'issue_thread_invalid /issueThread/schema',
    ],
    ['an unknown mode', (a) => (a.issueThread.mode = 'demo'), 'issue_thread_invalid /issueThread/mode'],
    ['no sessionId', (a) => delete a.issueThread.sessionId, 'issue_thread_invalid /issueThread/sessionId'],
    [
      'runnerAttached a string',
      (a) => (a.issueThread.identity.runnerAttached = 'yes'),
      'issue_thread_invalid /issueThread/identity/runnerAttached',
    ],
    [
      'a replay source of its own',
      (a) => (a.issueThread.identity.replaySource = 'replay'),
      'issue_thread_invalid /issueThread/identity/replaySource',
    ],
    [
      'an unknown priority',
      (a) => (a.issueThread.issue.priority = 'urgent'),
      'issue_thread_invalid /issueThread/issue/priority',
    ],
    [
      'a turn ordinal 0',
      (a) => (a.issueThread.turns[0].ordinal = 0),
      'issue_thread_invalid /issueThread/turns/0/ordinal',
    ],
    [
      'a negative tool call count',
      (a) => (a.issueThread.turns[0].toolCallCount = -1),
      'issue_thread_invalid /issueThread/turns/0/toolCallCount',
    ],
    [
      'an item without its kind',
      (a) => delete a.issueThread.turns[0].items[0].kind,
      'issue_thread_invalid /issueThread/turns/0/items/0/kind',
    ],
    [
      'an unknown composer state',
      (a) => (a.issueThread.composer.state = 'busy'),
      'issue_thread_invalid /issueThread/composer/state',
    ],
    [
      'an evidence section missing',
      (a) => delete a.issueThread.evidence.control_plane,
      'issue_thread_invalid /issueThread/evidence/control_plane',
    ],
    [
      'an evidence record a string',
      (a) => a.issueThread.evidence.calls.push('call'),
      'issue_thread_invalid /issueThread/evidence/calls/0',
    ],
    [
      'an unknown connection state',
      (a) => (a.issueThread.connection.state = 'gone'),
      'issue_thread_invalid /issueThread/connection/state',
    ],
    [
      'a replay without its total',
      (a) => (a.issueThread.replay = { ordinal: 1 }),
      'issue_thread_invalid /issueThread/replay',
    ],
    ['no renderedAt', (a) => delete a.issueThread.renderedAt, 'issue_thread_invalid /issueThread/renderedAt'],
  ];
  it.each(rows)('refuses %s', (_row, edit, expected) => {
    const found = issues(changed(edit));
    expect(found).toContain(expected);
    expect(
      found.every(
        (entry) => entry.startsWith('devtools_invalid') || entry.startsWith('issue_thread_invalid'),
      ),
    ).toBe(true);
  });

  it('holds a failure artifact that states them to the same shapes', () => {
    const failure = (): Artifact => upstreamFailure('a1', 'runner_infrastructure_failure', true);
    const views = upstreamSuccess('a1');
    expect(issues(changed((a) => Object.assign(a, { devtools: views.devtools }), failure))).toEqual([]);
    expect(issues(changed((a) => (a.devtools = { events: [] }), failure))).toContain(
      'devtools_invalid /devtools/schema',
    );
  });
});

describe("a missing cell's placeholder devtools", () => {
  it("is the aggregate's {revisions: []}, and nothing else", () => {
    expect(issues(upstreamMissingCell())).toEqual([]);
    const views = upstreamSuccess('a1');
    expect(issues(changed((a) => (a.devtools = views.devtools), upstreamMissingCell))).not.toEqual([]);
    expect(issues(changed((a) => a.devtools.revisions.push({ revision: 1 }), upstreamMissingCell))).toContain(
      'devtools_invalid /devtools/revisions',
    );
    expect(issues(changed((a) => (a.issueThread = views.issueThread), upstreamMissingCell))).toContain(
      'missing_cell_states_session /issueThread',
    );
  });
});

// Upstream's per-provider members of an artifact: each only for its provider, shaped as the request
// its parser accepted (the schema refers to the environment schema's lane fields, Evals' one
// statement of those shapes), the retained session derived from the provider session.
describe("upstream's per-provider members", () => {
  const managedProfile = {
    profileId: 'managed-1',
    anthropicAgentId: 'agent_1',
    agentVersion: '3',
    environmentId: 'env_1',
    betaVersion: 'managed-agents-2026-04-01',
    maxSessionListCostUsd: 2.5,
  };
  const agentCoreProfile = {
    ...Object.fromEntries(
      [
        'profileId',
        'region',
        'accountId',
        'harnessArn',
        'harnessVersion',
        'endpointArn',
        'endpointQualifier',
        'agentRuntimeArn',
        'memoryArn',
        'memoryId',
        'invocationRoleArn',
        'contextBucket',
        'contextPrefix',
        'contextKmsKeyArn',
        'qualificationRevision',
      ].map((name) => [name, `${name}-1`]),
    ),
    eventExpiryDays: 90,
    maxEstimatedSessionCostUsd: 1,
    maxIterations: 10,
    maxOutputTokens: 1000,
    timeoutSeconds: 60,
  };
  const managed = (): Artifact => ({
    ...upstreamSuccess('a1'),
    provider: 'claude_managed',
    driver: 'claude_managed_agents_api',
    managedProfile,
    retainedSession: true,
    retainedSessionStatus: 'retained',
  });
  const agentCore = (): Artifact => ({
    ...upstreamSuccess('a1'),
    provider: 'aws_agentcore',
    driver: 'aws_agentcore_harness_api',
    agentCoreProfile,
  });
  const acpx = (): Artifact => ({
    ...upstreamSuccess('a1'),
    provider: 'acpx',
    driver: 'acpx_runtime',
    acpxAgent: 'cursor',
    acpxProfile: { agent: 'cursor', acpxVersion: '0.3.1' },
    diagnosticCandidateProfile: 'cursor',
  });

  it.each([
    ['claude_managed', managed],
    ['aws_agentcore', agentCore],
    ['acpx', acpx],
  ] as const)('%s: valid as upstream writes it, kept whole', (_provider, make) => {
    const artifact = make();
    expect(issues(artifact)).toEqual([]);
    expect(parseEvalSessionArtifact(JSON.stringify(artifact))).toEqual(artifact);
  });

  const rows: [string, () => Artifact, (artifact: Artifact) => unknown, string][] = [
    [
      'a managed profile on codex',
      () => upstreamSuccess('a1'),
      (a) => (a.managedProfile = managedProfile),
      'provider_field_mismatch /managedProfile',
    ],
    [
      'an AgentCore profile on claude_managed',
      managed,
      (a) => (a.agentCoreProfile = agentCoreProfile),
      'provider_field_mismatch /agentCoreProfile',
    ],
    [
      'an ACPX agent on aws_agentcore',
      agentCore,
      (a) => (a.acpxAgent = 'codex'),
      'provider_field_mismatch /acpxAgent',
    ],
    [
      'a candidate profile on codex',
      () => upstreamSuccess('a1'),
      (a) => (a.diagnosticCandidateProfile = 'pi'),
      'provider_field_mismatch /diagnosticCandidateProfile',
    ],
    [
      'a candidate profile of another agent',
      acpx,
      (a) => (a.diagnosticCandidateProfile = 'pi'),
      'provider_field_mismatch /diagnosticCandidateProfile',
    ],
    ['an unregistered ACPX agent', acpx, (a) => (a.acpxAgent = 'gemini'), 'schema_violation /acpxAgent'],
    ['an ACPX profile that is empty', acpx, (a) => (a.acpxProfile = {}), 'schema_violation /acpxProfile'],
    [
      'an unknown candidate profile',
      acpx,
      (a) => (a.diagnosticCandidateProfile = 'codex'),
      'schema_violation /diagnosticCandidateProfile',
    ],
    [
      'a managed profile missing its environment',
      managed,
      (a) => delete a.managedProfile.environmentId,
      'schema_violation /managedProfile/environmentId',
    ],
    [
      'another managed beta',
      managed,
      (a) => (a.managedProfile.betaVersion = 'managed-agents-2025-01-01'),
      'schema_violation /managedProfile/betaVersion',
    ],
    [
      'an agentVersion not canonical',
      managed,
      (a) => (a.managedProfile.agentVersion = '03'),
      'schema_violation /managedProfile/agentVersion',
    ],
    [
      'an agentVersion past int32',
      managed,
      (a) => (a.managedProfile.agentVersion = '2147483648'),
      'schema_violation /managedProfile/agentVersion',
    ],
    [
      'a managed profile with a member upstream never writes',
      managed,
      (a) => (a.managedProfile.extra = 1),
      'schema_violation /managedProfile/extra',
    ],
    [
      'an AgentCore profile with another expiry',
      agentCore,
      (a) => (a.agentCoreProfile.eventExpiryDays = 30),
      'schema_violation /agentCoreProfile/eventExpiryDays',
    ],
    [
      'retainedSession a string',
      managed,
      (a) => (a.retainedSession = 'yes'),
      'schema_violation /retainedSession',
    ],
    [
      'a retained session with no provider session',
      managed,
      (a) => (a.providerSessionId = null),
      'retained_session_mismatch /retainedSession',
    ],
    [
      'retainedSessionStatus unknown with a provider session',
      managed,
      (a) => (a.retainedSessionStatus = 'unknown'),
      'retained_session_mismatch /retainedSessionStatus',
    ],
    [
      'retainedSessionStatus of its own',
      managed,
      (a) => (a.retainedSessionStatus = 'kept'),
      'schema_violation /retainedSessionStatus',
    ],
  ];
  it.each(rows)('refuses %s', (_row, base, edit, expected) => {
    expect(issues(changed(edit, base))).toContain(expected);
  });
});
