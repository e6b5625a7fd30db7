// The zone evaluator: one event, the caller's time and registers in; a Decision and the next
// registers out. Pure: no clock, randomness, I/O or memory between calls.
import { I64_MAX } from './framing.js';
import { isStronger } from './decision.js';
import { zeroedRegisters } from './state.js';

import type { LoadedBundle } from './bundle.js';
import type { Decision, MatchedArtifact } from './decision.js';
import type { PolicyEvent } from './event.js';
import type { Registers } from './state.js';

export interface Evaluation {
  readonly decision: Decision;
  readonly registers: Registers;
}

const DEFAULT_REASON = 'no artifact decided: the bundle default applies';

/**
 * Evaluates every artifact in bundle order. `registers` null means the caller's state is
 * unavailable: evaluation starts from a zeroed file and each Tier 2 artifact applies on_evict.
 * `registers` is updated in place when given.
 */
export function evaluateEvent(
  bundle: LoadedBundle,
  event: PolicyEvent,
  nowMs: bigint,
  registers: Registers | null,
): Evaluation {
  const available = registers !== null;
  const state = registers ?? zeroedRegisters(bundle.layout);
  if (state.run !== null) {
    state.run =
      state.run.shape === event.tool_name
        ? { shape: event.tool_name, len: state.run.len < I64_MAX ? state.run.len + 1n : I64_MAX }
        : { shape: event.tool_name, len: 1n };
  }
  const matched: MatchedArtifact[] = [];
  let decider: { id: string; verdict: MatchedArtifact['verdict']; reason: string } | undefined;
  const context = { event, nowMs, registers: state, available };
  for (const artifact of bundle.artifacts) {
    const outcome = artifact.evaluate(context);
    if (outcome === undefined) continue;
    matched.push({ rule_id: artifact.id, verdict: outcome.verdict, source: outcome.source });
    if (decider === undefined || isStronger(outcome.verdict, decider.verdict))
      decider = { id: artifact.id, verdict: outcome.verdict, reason: outcome.reason };
  }
  const decision: Decision = {
    verdict: decider?.verdict ?? bundle.defaultVerdict,
    rule_id: decider?.id ?? null,
    reason: decider?.reason ?? DEFAULT_REASON,
    matched,
    state: available ? 'available' : 'unavailable',
  };
  return { decision, registers: state };
}
