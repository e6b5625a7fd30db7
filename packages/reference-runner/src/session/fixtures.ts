// Generators of the two Evals fixtures the package ships (fixtures/evals/ is their one source,
// copied into protocol/fixtures/evals/): the seeded native-execution bundle, made by running the
// eval-session logic on a fixed request, and the harness-driver conformance fixture, made from
// the deterministic driver's own descriptor (the same content as upstream's fixture).
import { createHash } from 'node:crypto';

import { canonicalSha256 } from '../semantic-catalog.js';
import {
  CONFORMANCE_INTERRUPT_DIRECTIVE,
  DETERMINISTIC_DRIVER_DESCRIPTOR,
  DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
  DETERMINISTIC_SCENARIOS,
} from '../testing/deterministic-driver.js';
import { HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA } from '../testing/conformance.js';
import { runEvalSession } from './eval-session.js';

import type { HarnessDriverConformanceFixture } from '../testing/conformance.js';
import type { NativeAttemptInput } from './eval-session.js';

const SEEDED_CASE = { caseId: 'case_semantic_denial', prompt: 'Approve publishing the incident summary.' };
const SEEDED_CONFIG = {
  configId: 'config_deterministic_v1',
  driver: 'paperclip-deterministic',
  behaviour: 'deny_tool',
};

/** The fixed request the seeded bundle is generated from. */
export const SEEDED_EVAL_SESSION_REQUEST: NativeAttemptInput = Object.freeze({
  runId: 'run_evals_seeded',
  caseId: SEEDED_CASE.caseId,
  configId: SEEDED_CONFIG.configId,
  attemptId: 'attempt_semantic_denial_0001',
  caseSha256: canonicalSha256(SEEDED_CASE),
  configSha256: canonicalSha256(SEEDED_CONFIG),
  seed: 'paperclip-evals-v1-seed',
  startedAt: '2026-08-11T12:00:00.000Z',
  behaviour: 'deny_tool',
  prompt: SEEDED_CASE.prompt,
  // No-spend: the deterministic provider reports no cost, so the fixture carries no cost receipt.
  pricing: null,
});

/** No binary ran the seeded bundle; its binary digest is the sha256 of this statement. */
export const SEEDED_BINARY_STATEMENT = 'paperclip-runnerd: none (seeded fixture generated without a binary)';

export async function generateSeededNativeExecutionFixture(): Promise<Record<string, unknown>> {
  const binarySha256 = `sha256:${createHash('sha256').update(SEEDED_BINARY_STATEMENT, 'utf8').digest('hex')}`;
  const { bundle } = await runEvalSession(SEEDED_EVAL_SESSION_REQUEST, { binarySha256 });
  return {
    ...bundle,
    x_fixturePurpose:
      'Seeded, no-spend attempt: a governed approval denied for a missing claim stays denied (with its denial receipt); unknown additive fields such as this one survive parsing.',
  };
}

export function generateHarnessDriverConformanceFixture(): HarnessDriverConformanceFixture {
  const { unsupported, ...capabilities } = DETERMINISTIC_DRIVER_DESCRIPTOR.capabilities;
  return {
    schema: HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA,
    validConfig: { schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA, scenario: DETERMINISTIC_SCENARIOS[0] },
    invalidConfig: { schema: DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA, scenario: 'unknown' },
    completionMessage: 'Run deterministic semantic-tool conformance.',
    interruptMessage: `${CONFORMANCE_INTERRUPT_DIRECTIVE} Keep the turn active until interrupted.`,
    requiredCapabilities: Object.entries(capabilities)
      .filter(([, supported]) => supported)
      .map(([name]) => name),
    unsupportedFeatures: [...unsupported],
  };
}
