// Public surface of @paperclipai/paperclip-runner/evals, in upstream's names: build metadata, the
// native-execution schema, fixture and parser, the semantic catalog and its digest, compatibility
// negotiation, explicit runnerd resolution, and the PRP validators. docs/app-surface.md lists each
// name with where upstream has it. (The eval-session request and artifact are the
// paperclip-runner-eval-session bin's, src/cli/, as upstream keeps them: not exported here.)
export {
  PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA,
  PAPERCLIP_RUNNER_BUILD_METADATA,
  PAPERCLIP_RUNNER_BUILD_METADATA_SCHEMA,
  PAPERCLIP_RUNNER_NATIVE_EXECUTION_SCHEMA,
  PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
} from './build-metadata.js';
export type { PaperclipRunnerBuildMetadata, PaperclipRunnerdBuildMetadata } from './build-metadata.js';
export {
  loadPaperclipNativeExecutionFixture,
  paperclipNativeExecutionFixtureUrl,
  paperclipNativeExecutionSchemaUrl,
  parsePaperclipNativeExecution,
} from './native-execution.js';
export type { NativeExecutionContentRef, PaperclipNativeExecutionV1 } from './native-execution.js';
export {
  PAPERCLIP_RUNNER_EVAL_INTEGRATION_SCHEMA,
  assertPaperclipRunnerEvalCompatibility,
} from './compatibility.js';
export type {
  PaperclipRunnerEvalCompatibilityIssue,
  PaperclipRunnerEvalCompatibilityIssueCode,
  PaperclipRunnerEvalCompatibilityReceipt,
  PaperclipRunnerEvalCompatibilityRequirement,
} from './compatibility.js';
export { parsePaperclipRunnerdBuildMetadata, resolvePaperclipRunnerdArtifact } from './runnerd-artifact.js';
export type { PaperclipRunnerdArtifact, ResolvePaperclipRunnerdArtifactOptions } from './runnerd-artifact.js';
export {
  PaperclipNativeExecutionError,
  PaperclipRunnerEvalCompatibilityError,
  PaperclipRunnerdArtifactError,
} from '../errors.js';
export type { RunnerdArtifactIssue } from '../errors.js';
export {
  PRP_PROTOCOL_NAME,
  PRP_PROTOCOL_VERSION,
  validatePrpEvent,
  validatePrpStructuredRunResult,
} from '../prp.js';
export type { PrpEvent, PrpTerminal } from '../prp.js';
export {
  CAPABILITY_SEMANTIC_TOOL_CATALOG,
  canonicalCapabilitySemanticCatalog,
  capabilitySemanticToolDescriptor,
} from '../semantic-catalog.js';
export type { SemanticCatalog, SemanticCatalogOperation } from '../semantic-catalog.js';
export type {
  HarnessDriver,
  HarnessDriverDescriptor,
  NativeSessionCapabilities,
  RequiredHarnessDriverCapability,
} from '../runner-contracts.js';
