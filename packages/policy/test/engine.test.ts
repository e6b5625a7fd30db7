// Zone evaluator semantics through the producer, with state threaded from each state_out as a
// consumer would: Tier 1 operators, and each Tier 2 kind over time (rate, spend, latch, run).
import { describe, expect, it } from 'vitest';

import {
  askSecrets,
  bundleOf,
  denyRm,
  loopGuard,
  spendCap,
  taint,
  writeRate,
} from '@paperclip-evals/test-kit/policy-bundles';
import { drive } from './support/session.ts';

/** A session against one bundle: each call sends a row with the last good state and returns the decision. */
function sessionOf(...artifacts: unknown[]) {
  const producer = drive();
  producer.send({ type: 'bundle', bundle: bundleOf(...artifacts) });
  let state: unknown = undefined;
  return (event: Record<string, unknown>, nowMs = 0): Record<string, unknown> => {
    const reply = producer.send({
      type: 'row',
      id: 'r',
      event,
      now_ms: nowMs,
      state_in: state ?? zeroed(producer),
    });
    if (reply?.state_out === undefined) throw new Error(JSON.stringify(reply));
    state = reply.state_out;
    return reply.decision as Record<string, unknown>;
  };
}

/** The zeroed layout, learned from the producer's own state_out for an unavailable state. */
function zeroed(producer: ReturnType<typeof drive>): unknown {
  const reply = producer.send({
    type: 'row',
    id: 'probe',
    event: { event_type: 'probe' },
    now_ms: 0,
    state_in: null,
  });
  const state = reply?.state_out as { c: unknown[]; f: unknown[]; t: unknown[]; a: unknown[]; run: unknown };
  return {
    c: state.c.map(() => 0),
    f: state.f.map(() => false),
    t: state.t.map(() => 0),
    a: state.a.map(() => 0),
    run: state.run === null ? null : { shape: null, len: 0 },
  };
}

describe('Tier 1 predicate trees', () => {
  const evaluate = sessionOf(denyRm, askSecrets);
  const cases: [string, Record<string, unknown>, string, string | null][] = [
    ['all + equals + regex', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }, 'deny', 'no-rm'],
    ['all fails on one part', { tool_name: 'Bash', tool_input: { command: 'ls' } }, 'allow', null],
    [
      'any + glob on a tool_input path',
      { tool_name: 'Read', tool_input: { path: 'app/config/.env' } },
      'ask',
      'ask-secrets',
    ],
    [
      'glob on an env path (a string, never a file read)',
      { tool_name: 'Read', env: { cwd: '/secrets/prod' } },
      'ask',
      'ask-secrets',
    ],
    ['a missing field matches nothing', { tool_name: 'Bash' }, 'allow', null],
    [
      'deny outranks ask',
      { tool_name: 'Bash', tool_input: { command: 'rm .env', path: '.env' } },
      'deny',
      'no-rm',
    ],
  ];
  it.each(cases)('%s', (_name, event, verdict, ruleId) => {
    expect(evaluate(event)).toMatchObject({ verdict, rule_id: ruleId });
  });

  it('not, in, and array indexes in paths', () => {
    const artifact = {
      kind: 't1_predicate_tree',
      id: 'only-known-agents',
      version: 1,
      body: {
        when: {
          all: [
            { not: { field: 'agent.name', in: ['alice', 'bob'] } },
            { field: 'tool_input.files.1', equals: 'b.txt' },
          ],
        },
        verdict: 'deny',
        reason: 'unknown agent',
      },
    };
    const evaluate2 = sessionOf(artifact);
    expect(
      evaluate2({ agent: { name: 'mallory' }, tool_input: { files: ['a.txt', 'b.txt'] } }),
    ).toMatchObject({ verdict: 'deny' });
    expect(evaluate2({ agent: { name: 'bob' }, tool_input: { files: ['a.txt', 'b.txt'] } })).toMatchObject({
      verdict: 'allow',
    });
  });
});

describe('Tier 2 artifacts', () => {
  it('deny the 4th write within 60 s, and allow it again once the window has passed', () => {
    const evaluate = sessionOf(writeRate);
    const write = { tool_name: 'Write' };
    expect([0, 1000, 2000].map((t) => evaluate(write, t).verdict)).toEqual(['allow', 'allow', 'allow']);
    expect(evaluate({ tool_name: 'Read' }, 2500).verdict).toBe('allow');
    expect(evaluate(write, 3000)).toMatchObject({ verdict: 'deny', rule_id: 'write-rate' });
    expect(evaluate(write, 200_000).verdict).toBe('allow');
  });

  it('deny once spend_delta passes the limit', () => {
    const evaluate = sessionOf(spendCap);
    expect(evaluate({ spend_delta: 600 }).verdict).toBe('allow');
    expect(evaluate({ spend_delta: 400 }).verdict).toBe('allow');
    expect(evaluate({ spend_delta: 1 })).toMatchObject({ verdict: 'deny', rule_id: 'spend-cap' });
    expect(evaluate({}).verdict).toBe('deny');
  });

  it('latch: network is denied only after secrets were read', () => {
    const evaluate = sessionOf(taint);
    expect(evaluate({ tool_name: 'WebFetch' }).verdict).toBe('allow');
    expect(evaluate({ tool_name: 'Read', tool_input: { path: '.env' } }).verdict).toBe('allow');
    expect(evaluate({ tool_name: 'WebFetch' })).toMatchObject({
      verdict: 'deny',
      rule_id: 'no-net-after-secrets',
    });
  });

  it('run length: the same tool a third time in a row', () => {
    const evaluate = sessionOf(loopGuard);
    expect(
      ['Grep', 'Grep', 'Grep', 'Read', 'Grep'].map((tool) => evaluate({ tool_name: tool }).verdict),
    ).toEqual(['allow', 'allow', 'ask', 'allow', 'allow']);
  });
});

describe('unavailable state', () => {
  const cases: [string, unknown, Record<string, unknown>, string][] = [
    ['a rate limit applies its on_evict (ask)', writeRate, { tool_name: 'Write' }, 'ask'],
    ['a latch applies its on_evict (deny)', taint, { tool_name: 'WebFetch' }, 'deny'],
    ['on_evict reset evaluates on zeroed registers', spendCap, { spend_delta: 5 }, 'allow'],
    ['on_evict applies only where `when` matches', writeRate, { tool_name: 'Read' }, 'allow'],
  ];
  it.each(cases)('%s', (_name, artifact, event, verdict) => {
    const producer = drive();
    producer.send({ type: 'bundle', bundle: bundleOf(artifact) });
    const reply = producer.send({ type: 'row', id: 'r', event, now_ms: 0, state_in: null });
    expect(reply).toMatchObject({ decision: { verdict, state: 'unavailable' } });
  });
});
