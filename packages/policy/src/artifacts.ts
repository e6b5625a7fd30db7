// The artifact kinds of the zone evaluator, compiled at load. Tier 1 (t1_predicate_tree) is a pure
// function of the event; Tier 2 kinds also read and write their slice of the register file and
// declare what they decide when the caller's state is unavailable (on_evict).
import { I64_MAX, I64_MIN } from './framing.js';
import { compilePredicate } from './predicate.js';

import type { Verdict } from './decision.js';
import type { PolicyEvent } from './event.js';
import type { Predicate, PredicateNode } from './predicate.js';
import type { Registers, StateLayout } from './state.js';

export const ARTIFACT_KINDS = [
  't1_predicate_tree',
  't2_rate_limit',
  't2_spend_limit',
  't2_latch',
  't2_run_length',
] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export interface EvaluationContext {
  readonly event: PolicyEvent;
  readonly nowMs: bigint;
  readonly registers: Registers;
  /** False when state_in was null: each Tier 2 artifact applies its on_evict. */
  readonly available: boolean;
}

export interface ArtifactVerdict {
  readonly verdict: Verdict;
  readonly reason: string;
  readonly source: 'rule' | 'on_evict';
}

export interface CompiledArtifact {
  readonly id: string;
  readonly kind: ArtifactKind;
  evaluate(context: EvaluationContext): ArtifactVerdict | undefined;
}

/** Where a Tier 2 artifact's registers start; the loader hands these out in bundle order. */
export interface RegisterAllocator {
  take(file: 'c' | 'f' | 't' | 'a', count: number): number;
  useRun(): void;
  readonly layout: StateLayout;
}

type OnEvict = Verdict | 'reset';
interface Restrictive {
  readonly verdict: Verdict;
  readonly reason: string;
  readonly on_evict: OnEvict;
}

/** Bodies as the schema admits them ($defs/<kind>). */
export interface ArtifactBodies {
  t1_predicate_tree: { readonly when: PredicateNode; readonly verdict: Verdict; readonly reason: string };
  t2_rate_limit: Restrictive & {
    readonly when?: PredicateNode;
    readonly max: number;
    readonly window_ms: number;
  };
  t2_spend_limit: Restrictive & { readonly when?: PredicateNode; readonly limit: number };
  t2_latch: Restrictive & { readonly trigger: PredicateNode; readonly when: PredicateNode };
  t2_run_length: Restrictive & { readonly when?: PredicateNode; readonly max_run: number };
}

const ALWAYS: Predicate = () => true;
const EVICTED_REASON = 'session state unavailable (state_in null): on_evict';

/** Compiles a schema-valid body; throws a bad pattern (isBadPattern) for a pattern that does not compile. */
export function compileArtifact<K extends ArtifactKind>(
  kind: K,
  id: string,
  body: ArtifactBodies[K],
  registers: RegisterAllocator,
): CompiledArtifact {
  const compile = COMPILERS[kind] as (
    id: string,
    body: ArtifactBodies[K],
    registers: RegisterAllocator,
  ) => Evaluate;
  return { id, kind, evaluate: compile(id, body, registers) };
}

type Evaluate = CompiledArtifact['evaluate'];

const COMPILERS: {
  [K in ArtifactKind]: (id: string, body: ArtifactBodies[K], registers: RegisterAllocator) => Evaluate;
} = {
  t1_predicate_tree(_id, body) {
    const when = compilePredicate(body.when);
    const verdict: ArtifactVerdict = { verdict: body.verdict, reason: body.reason, source: 'rule' };
    return ({ event }) => (when(event) ? verdict : undefined);
  },

  // The (max+1)-th matching event within window_ms: a ring of the last `max` match times in t,
  // the next slot in c, whether the ring has filled in f. Every match is recorded, denied or not.
  t2_rate_limit(_id, body, registers) {
    const when = body.when === undefined ? ALWAYS : compilePredicate(body.when);
    const slot = registers.take('c', 1);
    const full = registers.take('f', 1);
    const times = registers.take('t', body.max);
    const windowMs = BigInt(body.window_ms);
    const max = BigInt(body.max);
    return restrictive(body, when, ({ nowMs, registers: r }) => {
      const next = r.c[slot] ?? 0n;
      const at = times + Number(next);
      const exceeded = r.f[full] === true && nowMs - (r.t[at] ?? 0n) < windowMs;
      r.t[at] = nowMs;
      const after = next + 1n === max ? 0n : next + 1n;
      if (after === 0n) r.f[full] = true;
      r.c[slot] = after;
      return exceeded;
    });
  },

  // Once the running sum of spend_delta passes `limit`, every matching event gets the verdict.
  t2_spend_limit(_id, body, registers) {
    const when = body.when === undefined ? ALWAYS : compilePredicate(body.when);
    const total = registers.take('a', 1);
    const limit = BigInt(body.limit);
    return restrictive(body, when, ({ event, registers: r }) => {
      const sum = saturating((r.a[total] ?? 0n) + (event.spend_delta ?? 0n));
      r.a[total] = sum;
      return sum > limit;
    });
  },

  // A trigger event sets the flag; from then on events matching `when` get the verdict.
  t2_latch(_id, body, registers) {
    const when = compilePredicate(body.when);
    const trigger = compilePredicate(body.trigger);
    const flag = registers.take('f', 1);
    return ({ event, registers: r, available }) => {
      const latched = r.f[flag] === true;
      if (trigger(event)) r.f[flag] = true;
      if (!when(event)) return undefined;
      if (!available && body.on_evict !== 'reset') return evicted(body.on_evict);
      return latched ? { verdict: body.verdict, reason: body.reason, source: 'rule' } : undefined;
    };
  },

  // The shared run register counts consecutive events with the same tool_name (updated by the
  // engine once per row); a matching event that makes the run longer than max_run gets the verdict.
  t2_run_length(_id, body, registers) {
    const when = body.when === undefined ? ALWAYS : compilePredicate(body.when);
    registers.useRun();
    const maxRun = BigInt(body.max_run);
    return restrictive(body, when, ({ registers: r }) => (r.run?.len ?? 0n) > maxRun);
  },
};

/**
 * The common shape of the counting kinds: when `when` matches, `step` updates the registers and
 * says whether the limit is passed; with unavailable state a non-reset on_evict decides instead.
 */
function restrictive(
  body: Restrictive,
  when: Predicate,
  step: (context: EvaluationContext) => boolean,
): Evaluate {
  const verdict: ArtifactVerdict = { verdict: body.verdict, reason: body.reason, source: 'rule' };
  return (context) => {
    if (!when(context.event)) return undefined;
    const exceeded = step(context);
    if (!context.available && body.on_evict !== 'reset') return evicted(body.on_evict);
    return exceeded ? verdict : undefined;
  };
}

function evicted(verdict: Verdict): ArtifactVerdict {
  return { verdict, reason: EVICTED_REASON, source: 'on_evict' };
}

function saturating(value: bigint): bigint {
  if (value > I64_MAX) return I64_MAX;
  return value < I64_MIN ? I64_MIN : value;
}
