// A lane's per-provider fields (upstream's eval-session request contract, docs/campaigns.md): a
// mutation table per provider of what the plan refuses before any session starts (the coded issue
// and its pointer) and what the environment schema refuses; each valid lane's request fields and
// bin flags, named in the record by digest and label only; the profile in the plan digest.
// lane-profile.e2e.test.ts runs them through the stand-in eval-session.
import { describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';
import { parseEnvironment } from '@paperclip-evals/evalbook';

import { CampaignError } from '../src/errors.ts';
import { planCampaign, planDigest, recordedLanes } from '../src/plan.ts';
import { AGENT_CORE, EXPECTED_PI, MANAGED, VALID, suiteWith } from './support/lane-profiles.ts';

/** The plan's coded issues (code and pointer) for one lane, or [] when it plans. */
function planIssues(lane: Record<string, unknown>): { code: string; path: string | undefined }[] {
  try {
    planCampaign(parseEnvironment(suiteWith({ lane_x: { lane } })), { campaignId: 'c1' });
  } catch (error) {
    if (error instanceof CampaignError) {
      expect(error.code).toBe('paperclip_campaign_suite_invalid');
      return error.issues.map((issue) => ({ code: issue.code, path: issue.path }));
    }
    throw error;
  }
  return [];
}

describe('a lane per provider', () => {
  it.each(Object.entries(VALID))('plans %s with its request fields and flags', (_name, entry) => {
    const plan = planCampaign(parseEnvironment(suiteWith({ lane_x: entry })), { campaignId: 'c1' });
    const [lane] = plan.lanes;
    if (entry.args.length === 0 && Object.keys(entry.request).length === 0) {
      expect(lane?.profile).toBeUndefined();
      expect(recordedLanes(plan)[0]).not.toHaveProperty('profile');
      return;
    }
    expect(lane?.profile?.request).toEqual(entry.request);
    expect(lane?.profile?.args).toEqual(entry.args);
    expect(lane?.profile?.sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The record names the profile by digest and label: never the profile's own values.
    const recorded = recordedLanes(plan)[0]?.profile;
    expect(recorded).toEqual({ sha256: lane?.profile?.sha256, label: lane?.profile?.label });
    expect(JSON.stringify(recorded)).not.toContain('000000000000');
  });

  // Each row: a valid lane changed once, and the one coded issue (and where) the plan refuses it with.
  const p = (field: string): string => `/configs/0/lane/${field}`;
  it.each([
    [
      'claude_managed without its profile',
      { provider: 'claude_managed' },
      'lane_profile_missing',
      p('managed_profile'),
    ],
    [
      'aws_agentcore without its profile',
      { provider: 'aws_agentcore' },
      'lane_profile_missing',
      p('agent_core_profile'),
    ],
    [
      'codex with a managed profile',
      { provider: 'codex', managed_profile: MANAGED },
      'lane_field_provider_mismatch',
      p('managed_profile'),
    ],
    [
      'codex with an acpx agent',
      { provider: 'codex', acpx_agent: 'claude' },
      'lane_field_provider_mismatch',
      p('acpx_agent'),
    ],
    [
      'opencode with an AgentCore profile',
      { provider: 'opencode', agent_core_profile: AGENT_CORE },
      'lane_field_provider_mismatch',
      p('agent_core_profile'),
    ],
    [
      'aws_agentcore with a managed profile too',
      { provider: 'aws_agentcore', agent_core_profile: AGENT_CORE, managed_profile: MANAGED },
      'lane_field_provider_mismatch',
      p('managed_profile'),
    ],
    [
      'claude_managed with an opencode version',
      { provider: 'claude_managed', managed_profile: MANAGED, opencode_version: '1.18.34' },
      'lane_field_provider_mismatch',
      p('opencode_version'),
    ],
    [
      'opencode with a candidate profile',
      { provider: 'opencode', candidate_profile: 'pi' },
      'lane_field_provider_mismatch',
      p('candidate_profile'),
    ],
    ['acpx without an agent', { provider: 'acpx' }, 'lane_acpx_agent_missing', p('acpx_agent')],
    ['acpx without an agent', { provider: 'acpx' }, 'lane_acpx_agent_missing', p('acpx_agent')],
    [
      'acpx pi without --candidate-profile',
      { provider: 'acpx', acpx_agent: 'pi' },
      'lane_candidate_profile_missing',
      p('candidate_profile'),
    ],
    [
      'acpx copilot without --candidate-profile',
      { provider: 'acpx', acpx_agent: 'copilot' },
      'lane_candidate_profile_missing',
      p('candidate_profile'),
    ],
    [
      'acpx codex with a candidate profile',
      { provider: 'acpx', acpx_agent: 'codex', candidate_profile: 'pi', expected_acpx_profile: EXPECTED_PI },
      'lane_candidate_profile_mismatch',
      p('candidate_profile'),
    ],
    [
      'acpx pi with --candidate-profile and no expected profile',
      { provider: 'acpx', acpx_agent: 'pi', candidate_profile: 'pi' },
      'lane_expected_acpx_profile_missing',
      p('expected_acpx_profile'),
    ],
    [
      'acpx with an expected profile over 4096 bytes',
      { provider: 'acpx', acpx_agent: 'codex', expected_acpx_profile: { pad: 'x'.repeat(4100) } },
      'lane_expected_acpx_profile_too_large',
      p('expected_acpx_profile'),
    ],
    [
      'claude_managed with an agentVersion past int32',
      { provider: 'claude_managed', managed_profile: { ...MANAGED, agentVersion: '2147483648' } },
      'lane_profile_invalid',
      `${p('managed_profile')}/agentVersion`,
    ],
  ])('refuses %s', (_name, lane, code, path) => {
    expect(planIssues(lane)).toEqual([{ code, path }]);
  });

  // What the schema refuses at load (upstream's parser refuses the same values).
  it.each([
    [
      'a beta version upstream does not qualify',
      {
        provider: 'claude_managed',
        managed_profile: { ...MANAGED, betaVersion: 'managed-agents-2025-01-01' },
      },
    ],
    [
      'a non-canonical agentVersion',
      { provider: 'claude_managed', managed_profile: { ...MANAGED, agentVersion: '07' } },
    ],
    [
      'a zero session cost',
      { provider: 'claude_managed', managed_profile: { ...MANAGED, maxSessionListCostUsd: 0 } },
    ],
    [
      'a managed profile without environmentId',
      { provider: 'claude_managed', managed_profile: { ...MANAGED, environmentId: undefined } },
    ],
    [
      'a blank AgentCore field',
      { provider: 'aws_agentcore', agent_core_profile: { ...AGENT_CORE, memoryId: ' ' } },
    ],
    [
      'an event expiry other than 90 days',
      { provider: 'aws_agentcore', agent_core_profile: { ...AGENT_CORE, eventExpiryDays: 30 } },
    ],
    [
      'fractional iterations',
      { provider: 'aws_agentcore', agent_core_profile: { ...AGENT_CORE, maxIterations: 1.5 } },
    ],
    [
      'an unknown AgentCore field',
      { provider: 'aws_agentcore', agent_core_profile: { ...AGENT_CORE, secretKey: 'x' } },
    ],
    ['an unregistered acpx agent', { provider: 'acpx', acpx_agent: 'gemini' }],
    [
      'a nested expected profile value',
      { provider: 'acpx', expected_acpx_profile: { agent: { name: 'pi' } } },
    ],
  ])('the environment refuses %s', (_name, lane) => {
    const suite = JSON.parse(JSON.stringify(suiteWith({ lane_x: { lane } }))) as unknown;
    expect(() => parseEnvironment(suite)).toThrow(ContractError);
  });

  it("puts the profile in the plan's identity: another profile, another plan digest", () => {
    const digest = (managed: Record<string, unknown>) =>
      planDigest(
        planCampaign(
          parseEnvironment(
            suiteWith({ lane_x: { lane: { provider: 'claude_managed', managed_profile: managed } } }),
          ),
          { campaignId: 'c1' },
        ),
      );
    expect(digest({ ...MANAGED, agentVersion: '8' })).not.toBe(digest(MANAGED));
  });
});
