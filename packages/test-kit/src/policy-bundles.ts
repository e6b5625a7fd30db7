// Policy bundles shared by the tests: one artifact of each kind, and a bundle that exercises them.
export const POLICY = 'paperclip-evals/policy-bundle/v1';

export const denyRm = {
  kind: 't1_predicate_tree',
  id: 'no-rm',
  version: 1,
  body: {
    when: {
      all: [
        { field: 'tool_name', equals: 'Bash' },
        { field: 'tool_input.command', regex: '^rm\\s' },
      ],
    },
    verdict: 'deny',
    reason: 'rm is not allowed',
  },
};

export const askSecrets = {
  kind: 't1_predicate_tree',
  id: 'ask-secrets',
  version: 1,
  body: {
    when: {
      any: [
        { field: 'tool_input.path', glob: '**/.env' },
        { field: 'env.cwd', glob: '/secrets/**' },
      ],
    },
    verdict: 'ask',
    reason: 'touches secrets',
  },
};

export const writeRate = {
  kind: 't2_rate_limit',
  id: 'write-rate',
  version: 1,
  body: {
    when: { field: 'tool_name', in: ['Write', 'Edit'] },
    max: 3,
    window_ms: 60_000,
    verdict: 'deny',
    reason: 'the 4th write within 60 s',
    on_evict: 'ask',
  },
};

export const spendCap = {
  kind: 't2_spend_limit',
  id: 'spend-cap',
  version: 1,
  body: { limit: 1000, verdict: 'deny', reason: 'spend passed 1000', on_evict: 'reset' },
};

export const taint = {
  kind: 't2_latch',
  id: 'no-net-after-secrets',
  version: 1,
  body: {
    trigger: { field: 'tool_input.path', glob: '**/.env' },
    when: { field: 'tool_name', equals: 'WebFetch' },
    verdict: 'deny',
    reason: 'network after reading secrets',
    on_evict: 'deny',
  },
};

export const loopGuard = {
  kind: 't2_run_length',
  id: 'loop-guard',
  version: 1,
  body: { max_run: 2, verdict: 'ask', reason: 'the same tool three times in a row', on_evict: 'reset' },
};

/** Denies the governed approval call the fixture attempts make (the runner denies it too). */
export const denyApprovals = {
  kind: 't1_predicate_tree',
  id: 'no-approvals',
  version: 1,
  body: {
    when: { field: 'tool_name', equals: 'decide_approval' },
    verdict: 'deny',
    reason: 'approvals need a human',
  },
};

export function bundleOf(...artifacts: unknown[]): { schema: string; artifacts: unknown[] } {
  return { schema: POLICY, artifacts };
}
