// `evals policy replay` as a library call: verify and stage the policy binary, replay every tool
// call of the attempts (toolCallSessions) through it, and compare each decision with the recorded
// outcome.
import { duplicateKeyIssues } from '@paperclip-evals/contract';

import type { Issue } from '@paperclip-evals/contract';

import { resolvePolicyBinary } from './binary.js';
import { loadBundle } from './bundle.js';
import { PolicyError } from './errors.js';
import { compareToolCall } from './attempts.js';
import { loneSurrogateAt } from './framing.js';
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
  /** Told how many calls have been answered so far, after each reply (keep it cheap). */
  readonly onProgress?: (answered: number) => void;
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
  /** In the order of the sessions given, each session's calls in replay order (however many ran at once). */
  readonly calls: readonly ToolCallComparison[];
  /** Calls the producer decided with a verdict Evals does not know (kept as received, compared with nothing). */
  readonly unfamiliarVerdicts: number;
}

/** A call with where it stands: its session's place among the sessions given, its own in the session. */
interface PlacedCall {
  readonly call: ToolCallRef;
  readonly session: number;
  readonly event: number;
}

export async function replayAttempts(options: ReplayAttemptsOptions): Promise<ReplayAttemptsResult> {
  const document = bundleDocument(options.bundle);
  const initialState = options.initialState === 'zeroed' ? zeroedStateOf(document, options.bundle) : null;
  const binary = await resolvePolicyBinary({
    executablePath: options.binaryPath,
    expectedSha256: options.binarySha256,
  });
  try {
    const placed: { place: PlacedCall; comparison: ToolCallComparison }[] = [];
    const summary = await replaySessions({
      ...options,
      command: { file: binary.stagedPath, args: options.binaryArgs },
      initialState,
      sessions: placedSessions(options.sessions),
      onReply: (_session, event, reply) => {
        placed.push({ place: event.ref, comparison: compareToolCall(event.ref.call, reply) });
        options.onProgress?.(placed.length);
      },
    });
    // Replies of concurrent sessions interleave: put the calls back in the order they were given.
    placed.sort((a, b) => a.place.session - b.place.session || a.place.event - b.place.event);
    const calls = placed.map((entry) => entry.comparison);
    const unfamiliarVerdicts = calls.filter((call) => call.agreement === 'policy_verdict_unfamiliar').length;
    return { ...summary, binarySha256: binary.sha256, calls, unfamiliarVerdicts };
  } finally {
    await binary.dispose();
  }
}

function* placedSessions(
  sessions: Iterable<ReplaySession<ToolCallRef>>,
): Generator<ReplaySession<PlacedCall>> {
  let session = 0;
  for (const { key, events } of sessions) {
    const place = session++;
    yield {
      key,
      events: (function* () {
        let event = 0;
        for (const replayEvent of events)
          yield { ...replayEvent, ref: { call: replayEvent.ref, session: place, event: event++ } };
      })(),
    };
  }
}

/**
 * The bundle document, read as strictly as every frame of the protocol is (the producer skips a
 * header with a repeated key or an unpaired surrogate without a reply, as invalid JSON): a caller's
 * invalid bundle, refused with every issue before any producer starts, never sent to wait out a
 * reply timeout. Numbers are not bounded here: the producer reads the bundle's integers exactly.
 */
function bundleDocument(bundleText: string): unknown {
  let document: unknown;
  try {
    document = JSON.parse(bundleText);
  } catch (cause) {
    throw new PolicyError('paperclip_policy_bundle_invalid', 'the policy bundle is not JSON', [
      { code: 'json_syntax', message: String(cause), path: '' },
    ]);
  }
  const issues: Issue[] = duplicateKeyIssues(bundleText, document, MAX_BUNDLE_DEPTH);
  const lone = loneSurrogateAt(bundleText, () => document);
  if (lone !== undefined)
    issues.push({
      code: 'json_lone_surrogate',
      message: 'an unpaired UTF-16 surrogate escape (no Unicode character, not I-JSON)',
      path: lone,
      expected: 'well-formed Unicode',
      received: 'an unpaired \\uD800-\\uDFFF escape',
    });
  if (issues.length > 0)
    throw new PolicyError(
      'paperclip_policy_bundle_invalid',
      `the policy bundle is not strict JSON: ${issues.map((issue) => `${issue.code} at ${issue.path === '' || issue.path === undefined ? '(root)' : issue.path}`).join(', ')}`,
      issues,
    );
  return document;
}

/** As deep as the producer reads a frame (its header holds the bundle). */
const MAX_BUNDLE_DEPTH = 1023;

function zeroedStateOf(document: unknown, bundleText: string): string {
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
