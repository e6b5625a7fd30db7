// The benchmark corpus: deterministic, varied native-execution/v1 bundles built with the synthetic
// generator. Each bundle has about 200 events; tool calls, progress events per call, filler text,
// denials, provenance, terminal state and cost vary with the index so no two documents are alike.
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';

/** Events in a bundle: turn.started + per call (progress + input + result) + result + terminal. */
const eventCount = (toolCalls: number, progressEvents: number): number =>
  3 + toolCalls * (progressEvents + 2);

const PROVENANCE = ['seeded', 'replay', 'live'] as const;
const TERMINAL = ['succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled'] as const;

/** The generator options of bundle `index`, aiming at ~200 events. */
export function benchAttemptOptions(
  index: number,
  attemptId = benchAttemptId(index),
): SyntheticAttemptOptions {
  const toolCalls = 6 + (index % 11); // 6..16 tool call pairs
  const progressEvents = Math.max(1, Math.round((200 - 3) / toolCalls) - 2);
  return {
    runId: `run_${String(Math.floor(index / 10)).padStart(4, '0')}`,
    caseId: `case_${String(index % 37).padStart(3, '0')}`,
    configId: `config_${String(index % 3)}`,
    attemptId,
    provenance: PROVENANCE[index % PROVENANCE.length] ?? 'seeded',
    toolCalls,
    deniedCalls: index % 4,
    progressEvents,
    fillerBytes: 8 + ((index * 7) % 41), // 8..48 bytes of progress text
    runTerminalState: TERMINAL[index % TERMINAL.length] ?? 'succeeded',
    costMicros: index % 11 === 0 ? null : 1000 + index,
    startedAtMs: Date.UTC(2026, 10, 1, 12, 0, 0) + index * 60_000,
  };
}

export const benchAttemptId = (index: number): string => `att_${String(index).padStart(5, '0')}`;

export type BundleFormat = 'compact' | 'pretty';

export interface BenchBundle {
  readonly bytes: Buffer;
  readonly events: number;
}

/** Bundle `index`, compact (~97 KB) or pretty-printed with a two-space indent (~132 KB). */
export function benchBundle(index: number, attemptId?: string, format: BundleFormat = 'pretty'): BenchBundle {
  const options = benchAttemptOptions(index, attemptId);
  const bundle = syntheticAttempt(options);
  const text = format === 'pretty' ? JSON.stringify(bundle, null, 2) : JSON.stringify(bundle);
  const bytes = Buffer.from(`${text}\n`, 'utf8');
  return { bytes, events: eventCount(options.toolCalls ?? 0, options.progressEvents ?? 0) };
}
