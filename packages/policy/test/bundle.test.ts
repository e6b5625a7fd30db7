// Stage one and stage two of bundle loading: each bad envelope is rejected whole, each bad artifact
// is skipped with its exact reason while the rest load, and the digest is RFC 8785's.
import { canonicalDigest } from '@paperclip-evals/contract';
import { describe, expect, it } from 'vitest';

import { loadBundle } from '../src/bundle.ts';
import { compilePredicate, isBadPattern } from '../src/predicate.ts';
import {
  askSecrets,
  bundleOf,
  denyRm,
  loopGuard,
  spendCap,
  taint,
  writeRate,
} from '@paperclip-evals/test-kit/policy-bundles';

describe('when the envelope is wrong', () => {
  const cases: [string, unknown][] = [
    ['null', null],
    ['an array', []],
    ['no schema', { artifacts: [] }],
    ['another schema', { schema: 'paperclip-evals/policy-bundle/v2', artifacts: [] }],
    ['no artifacts', { schema: 'paperclip-evals/policy-bundle/v1' }],
    ['artifacts not an array', { schema: 'paperclip-evals/policy-bundle/v1', artifacts: {} }],
    [
      'an unknown default verdict',
      { schema: 'paperclip-evals/policy-bundle/v1', artifacts: [], default_verdict: 'maybe' },
    ],
  ];
  it.each(cases)('rejects %s and loads nothing', (_name, document) => {
    const load = loadBundle(document);
    expect(load.ok).toBe(false);
  });
});

describe('when one artifact is wrong', () => {
  const cases: [string, unknown, { kind: string; id: string; reason: string }][] = [
    [
      'an unknown kind',
      { ...denyRm, kind: 't9_magic' },
      { kind: 't9_magic', id: 'no-rm', reason: 'unknown_kind' },
    ],
    ['no kind', { id: 'x', version: 1, body: {} }, { kind: '', id: 'x', reason: 'unknown_kind' }],
    ['not an object', 42, { kind: '', id: '', reason: 'unknown_kind' }],
    [
      'a newer version than the engine',
      { ...denyRm, version: 2 },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'unknown_kind' },
    ],
    [
      'a version below the floor',
      { ...denyRm, version: 0 },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'below_floor' },
    ],
    [
      'a float in the body',
      { ...writeRate, body: { ...writeRate.body, window_ms: 60_000.5 } },
      { kind: 't2_rate_limit', id: 'write-rate', reason: 'float_present' },
    ],
    [
      'a float version',
      { ...denyRm, version: 1.5 },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'float_present' },
    ],
    [
      'an integer beyond 2^53 (no exact double: the body cannot be read as written)',
      { ...spendCap, body: { ...spendCap.body, limit: 2 ** 60 } },
      { kind: 't2_spend_limit', id: 'spend-cap', reason: 'body_parse_error' },
    ],
    [
      'no body',
      { kind: 't1_predicate_tree', id: 'x', version: 1 },
      { kind: 't1_predicate_tree', id: 'x', reason: 'body_parse_error' },
    ],
    [
      'no id',
      { kind: 't1_predicate_tree', version: 1, body: denyRm.body },
      { kind: 't1_predicate_tree', id: '', reason: 'body_parse_error' },
    ],
    [
      'an unknown field path',
      { ...denyRm, body: { ...denyRm.body, when: { field: 'hostname', equals: 'x' } } },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'body_parse_error' },
    ],
    [
      'an unknown operator',
      { ...denyRm, body: { ...denyRm.body, when: { field: 'tool_name', startsWith: 'x' } } },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'body_parse_error' },
    ],
    [
      'a Tier 2 artifact without on_evict',
      { ...writeRate, body: { ...writeRate.body, on_evict: undefined } },
      { kind: 't2_rate_limit', id: 'write-rate', reason: 'body_parse_error' },
    ],
    [
      'a rate limit that would allow (only deny or ask restrict)',
      { ...writeRate, body: { ...writeRate.body, verdict: 'allow' } },
      { kind: 't2_rate_limit', id: 'write-rate', reason: 'body_parse_error' },
    ],
    [
      'a regex that does not compile',
      { ...denyRm, body: { ...denyRm.body, when: { field: 'tool_name', regex: '(' } } },
      { kind: 't1_predicate_tree', id: 'no-rm', reason: 'bad_pattern' },
    ],
    [
      'a glob with an unbalanced bracket',
      { ...askSecrets, body: { ...askSecrets.body, when: { field: 'tool_input.path', glob: 'src/[ab' } } },
      { kind: 't1_predicate_tree', id: 'ask-secrets', reason: 'bad_pattern' },
    ],
    [
      'an empty glob',
      { ...taint, body: { ...taint.body, trigger: { field: 'tool_input.path', glob: '' } } },
      { kind: 't2_latch', id: 'no-net-after-secrets', reason: 'bad_pattern' },
    ],
  ];

  it.each(cases)('skips %s with its reason and loads the rest', (_name, bad, skipped) => {
    // Through JSON text, as on the wire (an undefined member is absent); with and without the text.
    const text = JSON.stringify(bundleOf(denyRm, bad, writeRate));
    for (const load of [loadBundle(JSON.parse(text)), loadBundle(JSON.parse(text), text)]) {
      if (!load.ok) throw new Error(load.message);
      expect(load.bundle.skipped).toEqual([skipped]);
      expect(load.bundle.artifacts.map((artifact) => artifact.kind)).toEqual([
        't1_predicate_tree',
        't2_rate_limit',
      ]);
    }
  });

  // Written numbers JSON.parse reads as integers: only the bundle's text shows the fraction or exponent.
  const written: [string, string, string][] = [
    ['a fraction of zero', '"window_ms":60000', '"window_ms":60000.0'],
    ['an exponent', '"window_ms":60000', '"window_ms":6e4'],
    ['a capital exponent with a sign', '"window_ms":60000', '"window_ms":6E+4'],
    [
      'a version of 1.0',
      '"version":1,"body":{"when":{"field":"tool_name","in"',
      '"version":1.0,"body":{"when":{"field":"tool_name","in"',
    ],
  ];
  it.each(written)('skips %s as float_present when the text is known', (_name, from, to) => {
    const text = JSON.stringify(bundleOf(denyRm, writeRate)).replace(from, to);
    expect(text).toContain(to);
    const load = loadBundle(JSON.parse(text), text);
    if (!load.ok) throw new Error(load.message);
    expect(load.bundle.skipped).toEqual([
      { kind: 't2_rate_limit', id: 'write-rate', reason: 'float_present' },
    ]);
    // Without the text the value is all there is: 60000.0 is 60000.
    expect(loadBundle(JSON.parse(text))).toMatchObject({ ok: true, bundle: { skipped: [] } });
  });

  it('reads numbers only outside strings, in any layout', () => {
    const document = bundleOf(
      { ...denyRm, body: { ...denyRm.body, reason: 'not 1.5 or 6e4 times' } },
      writeRate,
    );
    const text = JSON.stringify(document, null, 2).replace('"artifacts": [', '"artifacts" :\n [ ');
    const load = loadBundle(JSON.parse(text), text);
    if (!load.ok) throw new Error(load.message);
    expect(load.bundle.skipped).toEqual([]);
    expect(load.bundle.artifacts).toHaveLength(2);
  });

  it('gives a skipped Tier 2 artifact no registers', () => {
    const broken = {
      ...writeRate,
      id: 'broken',
      body: { ...writeRate.body, when: { field: 'tool_name', regex: '[' } },
    };
    const load = loadBundle(bundleOf(broken, writeRate));
    if (!load.ok) throw new Error(load.message);
    expect(load.bundle.layout).toEqual({ c: 1, f: 1, t: 3, a: 0, run: false });
  });
});

describe('a loaded bundle', () => {
  it('has the RFC 8785 digest of the whole document, skipped artifacts included', () => {
    const document = bundleOf({ kind: 'nope' }, denyRm);
    const load = loadBundle(document);
    expect(load.ok && load.bundle.digest).toBe(canonicalDigest(document));
  });

  it('lays out registers in bundle order', () => {
    const load = loadBundle(bundleOf(denyRm, writeRate, spendCap, taint, loopGuard, writeRate));
    if (!load.ok) throw new Error(load.message);
    expect(load.bundle.layout).toEqual({ c: 2, f: 3, t: 6, a: 1, run: true });
    expect(load.bundle.skipped).toEqual([]);
  });
});

describe('a pattern that does not compile', () => {
  it.each([
    ['glob', { field: 'tool_input.path', glob: '[' }],
    ['regex', { field: 'tool_input.command', regex: '(' }],
  ] as const)('is the PolicyError bundle_invalid with one bad_pattern issue (%s)', (kind, node) => {
    let thrown: unknown;
    try {
      compilePredicate(node);
    } catch (error) {
      thrown = error;
    }
    expect(isBadPattern(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      name: 'PolicyError',
      code: 'paperclip_policy_bundle_invalid',
      issues: [{ code: 'bad_pattern', expected: `a ${kind} that compiles` }],
    });
  });

  it.each([
    ['a lookahead', '^(?=rm)'],
    ['a lookbehind', '(?<=sudo )rm'],
    ['a backreference', '^(a)\\1$'],
  ])('RE2 has no %s: bad_pattern at load, never a backtracking engine', (_what, regex) => {
    expect(() => compilePredicate({ field: 'tool_name', regex })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ code: 'bad_pattern' })] }),
    );
  });

  it('is told apart from any other failure', () => {
    expect(isBadPattern(new Error('x'))).toBe(false);
    expect(isBadPattern(new SyntaxError('x'))).toBe(false);
  });
});

describe('a regex runs in time linear in the text (RE2: a hostile tool input cannot hang the producer)', () => {
  it.each([
    ['^(a+)+$', `${'a'.repeat(5000)}!`],
    ['^([a-z0-9:]+)+!$', `sha256:${'a'.repeat(5000)}`],
    ['(x+x+)+y', 'x'.repeat(5000)],
  ])('%s on a %#-th hostile text: no match, at once', (regex, text) => {
    const test = compilePredicate({ field: 'tool_name', regex });
    const started = process.hrtime.bigint();
    expect(test({ tool_name: text } as Parameters<typeof test>[0])).toBe(false);
    // A backtracking engine takes longer than the universe on these; RE2 a few milliseconds.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });

  it('matches what it should: anywhere in the text, Unicode classes included', () => {
    const rm = compilePredicate({ field: 'tool_input.command', regex: '(^|\\s)rm\\s+-rf\\b' });
    expect(rm({ tool_input: { command: 'cd /tmp && rm -rf x' } } as Parameters<typeof rm>[0])).toBe(true);
    expect(rm({ tool_input: { command: 'git rm x' } } as Parameters<typeof rm>[0])).toBe(false);
    const letters = compilePredicate({ field: 'tool_name', regex: '^\\p{L}+$' });
    expect(letters({ tool_name: 'café' } as Parameters<typeof letters>[0])).toBe(true);
  });
});
