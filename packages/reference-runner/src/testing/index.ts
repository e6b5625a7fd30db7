// Public surface of @paperclipai/paperclip-runner/testing: the deterministic harness driver, the
// control-plane fake and the harness-driver conformance kit. Test doubles live only here.
export {
  CONFORMANCE_INTERRUPT_DIRECTIVE,
  DETERMINISTIC_BEHAVIOURS,
  DETERMINISTIC_DEFAULT_BUDGET_TOKENS,
  DETERMINISTIC_DEFAULT_MODEL,
  DETERMINISTIC_DEFAULT_PRICING,
  DETERMINISTIC_DRIVER_CONFIG_SCHEMA,
  DETERMINISTIC_DRIVER_DESCRIPTOR,
  DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP,
  DeterministicHarnessDriver,
} from './deterministic-driver.js';
export type {
  DeterministicBehaviour,
  DeterministicHarnessDriverConfig,
  DeterministicHarnessDriverOptions,
  DeterministicPricing,
} from './deterministic-driver.js';
export { FAKE_CONTROL_PLANE_DOCUMENTS, FakeControlPlane } from './fake-control-plane.js';
export type {
  FakeControlPlaneDenyRule,
  FakeControlPlaneOptions,
  RecordedGovernedToolDecision,
} from './fake-control-plane.js';
export {
  CONFORMANCE_STARTED_AT,
  DEFAULT_CONFORMANCE_CHECK_TIMEOUT_MS,
  HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA,
  HARNESS_DRIVER_CONFORMANCE_SCHEMA,
  loadHarnessDriverConformanceFixture,
  runHarnessDriverConformance,
} from './conformance.js';
export type {
  ConformanceReport,
  HarnessDriverConformanceFixture,
  RunHarnessDriverConformanceOptions,
} from './conformance.js';
export { SeededPrng } from './seeded-prng.js';
