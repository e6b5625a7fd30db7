// Public surface of @paperclipai/paperclip-runner/evals: build metadata, the native-execution
// schema, fixture and parser, the semantic catalog and its digest, compatibility negotiation,
// explicit runnerd resolution. (The eval-session request and artifact are the
// paperclip-runner-eval-session bin's, src/cli/, as upstream keeps them: not exported here.)
export { PAPERCLIP_RUNNER_BUILD_METADATA } from './build-metadata.js';
export {
  CONTRACT_VERSIONS,
  NATIVE_EXECUTION_SCHEMA_NAME,
  PRP_VERSION_RANGE,
  RUNNERD_BINARY_NAME,
  RUNNERD_BUILD_METADATA_SCHEMA,
} from '../build-info.js';
export type { PackageBuildMetadata, RunnerdBuildMetadata, RunnerdBuildProfile } from '../build-info.js';
export {
  SEMANTIC_CATALOG,
  SEMANTIC_CATALOG_SCHEMA,
  SEMANTIC_CATALOG_SHA256,
  canonicalSha256,
} from '../semantic-catalog.js';
export type { SemanticCatalog, SemanticCatalogOperation } from '../semantic-catalog.js';
export {
  NATIVE_EXECUTION_SCHEMA,
  loadSeededNativeExecutionFixture,
  parseNativeExecution,
} from './native-execution.js';
export type { ContentReference, NativeExecution } from './native-execution.js';
export { EVALS_INTEGRATION_SCHEMA, assertPaperclipRunnerEvalCompatibility } from './compatibility.js';
export type {
  EvalCompatibilityIssue,
  EvalCompatibilityIssueCode,
  PaperclipRunnerEvalReceipt,
  PaperclipRunnerEvalRequirement,
} from './compatibility.js';
export {
  DEFAULT_RUNNERD_METADATA_TIMEOUT_MS,
  parseRunnerdBuildMetadata,
  resolvePaperclipRunnerdArtifact,
} from './runnerd-artifact.js';
export type { PaperclipRunnerdArtifact, ResolvePaperclipRunnerdArtifactOptions } from './runnerd-artifact.js';
export { PaperclipRunnerError, PaperclipRunnerdArtifactError, isPaperclipRunnerError } from '../errors.js';
export type { PaperclipRunnerErrorCode, PaperclipRunnerIssue, RunnerdArtifactIssue } from '../errors.js';
