// `evals policy replay` as a library call: verify and stage the policy binary, replay every tool
// call of the attempts (toolCallSessions) through it, and compare each decision with the recorded
// outcome.
import { resolvePolicyBinary } from './binary.js';
import { loadBundle } from './bundle.js';
import { PolicyError } from './errors.js';
import { compareToolCall } from './attempts.js';
import { replaySessions } from './replay.js';
import { stateToJSON, zeroedRegisters } from './state.js';

import type { ToolCallComparison, ToolCallRef } from './attempts.js';
import type { ClientOptions } from './client.js';
import type { ReplaySession, ReplaySummary } from './replay.js';

export interface ReplayAttemptsOptions extends ClientOptions {
  readonly binaryPath: string;
  readonly binarySha256: string;
  /** Arguments for the binary (e.g. ["policy", "evaluate"] or ["evaluate"]). */
  readonly binaryArgs: readonly string[];
  /** The bundle document as JSON text. */
  readonly bundle: string;
  /**
   * The attempts' tool calls, from toolCallSessions: a caller reading many attempts converts each
   * as it reads it and keeps only its tool calls, never the whole bundles.
   */
  readonly sessions: Iterable<ReplaySession<ToolCallRef>>;
  /**
   * State of each session's first row. zeroed: registers available and empty, computed from the
   * bundle with this package's loader (so the bundle must be a paperclip-evals/policy-bundle/v1);
   * unavailable: null, so every Tier 2 artifact applies its on_evict.
   */
  readonly initialState: 'zeroed' | 'unavailable';
  readonly processes?: number;
  readonly sessionsPerProcess?: number;
}

export interface ReplayAttemptsResult extends ReplaySummary {
  readonly binarySha256: string;
  readonly calls: readonly ToolCallComparison[];
}

export async function replayAttempts(options: ReplayAttemptsOptions): Promise<ReplayAttemptsResult> {
  const initialState = options.initialState === 'zeroed' ? zeroedStateOf(options.bundle) : null;
  const binary = await resolvePolicyBinary({
    executablePath: options.binaryPath,
    expectedSha256: options.binarySha256,
  });
  try {
    const calls: ToolCallComparison[] = [];
    const summary = await replaySessions({
      ...options,
      command: { file: binary.stagedPath, args: options.binaryArgs },
      initialState,
      sessions: options.sessions,
      onReply: (_session, event, reply) => calls.push(compareToolCall(event.ref, reply)),
    });
    return { ...summary, binarySha256: binary.sha256, calls };
  } finally {
    await binary.dispose();
  }
}

function zeroedStateOf(bundleText: string): string {
  let document: unknown;
  try {
    document = JSON.parse(bundleText);
  } catch (cause) {
    throw new PolicyError('paperclip_policy_bundle_invalid', 'the policy bundle is not JSON', [
      { code: 'json_syntax', message: String(cause), path: '' },
    ]);
  }
  const load = loadBundle(document, bundleText);
  if (!load.ok)
    throw new PolicyError('paperclip_policy_bundle_invalid', load.message, [
      {
        code: 'bundle_rejected',
        message: `${load.message} (use --initial-state unavailable for another bundle format)`,
        path: '',
      },
    ]);
  return stateToJSON(zeroedRegisters(load.bundle.layout));
}
