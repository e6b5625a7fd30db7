// Public surface of @paperclipai/paperclip-runner/testing, in upstream's names: everything the root
// exports, plus the deterministic harness driver and the harness-driver conformance kit (its
// fixture, parser and report). Test doubles live only here.
export * from './index.js';
export {
  DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA,
  DeterministicHarnessDriver,
} from './testing/deterministic-driver.js';
export type { DeterministicHarnessDriverConfig } from './testing/deterministic-driver.js';
export {
  HARNESS_DRIVER_CONFORMANCE_FIXTURE_SCHEMA,
  HARNESS_DRIVER_CONFORMANCE_REPORT_SCHEMA,
  harnessDriverConformanceFixtureUrl,
  loadHarnessDriverConformanceFixture,
  parseHarnessDriverConformanceFixture,
  runHarnessDriverConformance,
} from './testing/conformance.js';
export type {
  HarnessDriverConformanceFixture,
  HarnessDriverConformanceReport,
  RunHarnessDriverConformanceOptions,
} from './testing/conformance.js';
