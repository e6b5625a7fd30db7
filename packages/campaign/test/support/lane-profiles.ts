// Test support: one valid lane per upstream provider (its lane fields, and the request fields and
// bin flags a campaign must send for it, docs/campaigns.md), and a suite of such lanes for the
// stand-in eval-session.
import { suiteEnvironment } from './stand-in.ts';

export const MANAGED = {
  profileId: 'managed-eval-1',
  anthropicAgentId: 'agent_01',
  agentVersion: '7',
  environmentId: 'env_01',
  betaVersion: 'managed-agents-2026-04-01',
  maxSessionListCostUsd: 2.5,
};
export const AGENT_CORE = {
  profileId: 'agentcore-eval-1',
  region: 'us-east-1',
  accountId: '000000000000',
  harnessArn: 'arn:aws:bedrock-agentcore:us-east-1:000000000000:harness/h',
  harnessVersion: '3',
  endpointArn: 'arn:aws:bedrock-agentcore:us-east-1:000000000000:endpoint/e',
  endpointQualifier: 'DEFAULT',
  agentRuntimeArn: 'arn:aws:bedrock-agentcore:us-east-1:000000000000:runtime/r',
  memoryArn: 'arn:aws:bedrock-agentcore:us-east-1:000000000000:memory/m',
  memoryId: 'm',
  invocationRoleArn: 'arn:aws:iam::000000000000:role/eval',
  contextBucket: 'eval-context',
  contextPrefix: 'evals/',
  contextKmsKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/k',
  qualificationRevision: 'q-2026-11',
  eventExpiryDays: 90,
  maxEstimatedSessionCostUsd: 1,
  maxIterations: 8,
  maxOutputTokens: 4096,
  timeoutSeconds: 600,
};
export const EXPECTED_PI = {
  agent: 'pi',
  acpxVersion: '0.9.1',
  agentProfileVersion: 1,
  agentRuntimePackage: null,
};

/** One valid lane per provider: its lane fields, and the request fields and flags it must send. */
export const VALID: Record<
  string,
  { lane: Record<string, unknown>; request: Record<string, unknown>; args: string[]; model?: string }
> = {
  codex: { lane: { provider: 'codex' }, request: {}, args: [] },
  opencode: {
    lane: { provider: 'opencode', opencode_version: '1.18.34' },
    request: { opencodeVersion: '1.18.34' },
    args: [],
  },
  claude_managed: {
    lane: { provider: 'claude_managed', managed_profile: MANAGED },
    request: { managedProfile: MANAGED },
    args: [],
    model: 'claude-sonnet-5',
  },
  aws_agentcore: {
    lane: { provider: 'aws_agentcore', agent_core_profile: AGENT_CORE },
    request: { agentCoreProfile: AGENT_CORE },
    args: [],
    model: 'global.anthropic.claude-sonnet-4-6',
  },
  acpx_claude: {
    lane: { provider: 'acpx', acpx_agent: 'claude' },
    request: { acpxAgent: 'claude' },
    args: [],
  },
  acpx_pi: {
    lane: { provider: 'acpx', acpx_agent: 'pi', candidate_profile: 'pi', expected_acpx_profile: EXPECTED_PI },
    request: { acpxAgent: 'pi' },
    args: ['--candidate-profile', 'pi', '--expected-acpx-profile', JSON.stringify(EXPECTED_PI)],
  },
  acpx_cursor: {
    lane: { provider: 'acpx', acpx_agent: 'cursor' },
    request: { acpxAgent: 'cursor' },
    args: [],
  },
};

export const suiteWith = (
  lanes: Record<string, { lane: Record<string, unknown>; model?: string }>,
  behaviour = 'refuse',
) =>
  suiteEnvironment([{ id: 'case_a', behaviour }], {
    lanes: Object.entries(lanes).map(([id, entry]) => ({
      id,
      lane: entry.lane,
      ...(entry.model === undefined ? {} : { model: entry.model }),
    })),
    retries: 0,
  });
