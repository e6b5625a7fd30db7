// Public surface of @paperclip-evals/contract: explicit named exports only. The contract is pure —
// no child processes, no file writes (its I/O half is @paperclip-evals/node).
export { MARKDOWN_BREAK, markdownText } from './markdown-text.js';
export { canonicalBytes, canonicalize, hasLoneSurrogate } from './canonical-json.js';
export {
  SHA256_DIGEST_PATTERN,
  canonicalDigest,
  digestStream,
  digestsEqual,
  isSha256Digest,
  sha256Digest,
} from './digest.js';
export type { Sha256Digest, StreamDigest } from './digest.js';
export { ContractError, isContractError, pointer, pointerToken } from './errors.js';
export type { ContractErrorCode, Issue } from './errors.js';
export {
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  duplicateKeyIssues,
  readJsonText,
} from './json-text.js';
export type { JsonTextLimits, JsonTextResult } from './json-text.js';
export {
  SCHEMA_IDS,
  SCHEMAS_DIR,
  createSchemaAjv,
  schemaErrors,
  schemaDocument,
  schemaIssuesOf,
  schemaValidator,
} from './schema-registry.js';
export {
  assertNativeExecution,
  isNativeExecution,
  nativeExecutionIssues,
  parseNativeExecution,
} from './native-execution.js';
export type { ParseNativeExecutionOptions } from './native-execution.js';
export { NATIVE_EXECUTION_V1 } from './native-execution-types.js';
export type * from './native-execution-types.js';
export {
  EVAL_SESSION_ARTIFACT_V1,
  EVAL_SESSION_PROVIDER_DRIVERS,
  INFRASTRUCTURE_FAILURE_CLASSES,
  assertEvalSessionArtifact,
  evalSessionArtifactIssues,
  invalidArtifact,
  isEvalSessionArtifact,
  parseEvalSessionArtifact,
} from './eval-session-artifact.js';
export type {
  EvalSessionArtifact,
  EvalSessionInfrastructureFailure,
  EvalSessionUsage,
  InfrastructureFailureClass,
} from './eval-session-artifact.js';
export { NATIVE_EXECUTION_RULES } from './native-execution-rules.js';
export type { NativeExecutionRule, NativeExecutionRuleCode } from './native-execution-rules.js';
export {
  RUNNERD_BUILD_METADATA_V1,
  assertRunnerdBuildMetadata,
  describeJsonType,
  isRunnerdBuildMetadata,
  parseRunnerdBuildMetadata,
  runnerdArtifactInvalid,
  runnerdBuildMetadataIssues,
  runnerdMetadataFromStdout,
} from './runnerd-metadata.js';
export type {
  RunnerdArtifactIssue,
  RunnerdArtifactIssueCode,
  RunnerdBuildMetadata,
} from './runnerd-metadata.js';
export {
  CONSUMER_REQUIREMENTS_V1,
  EVALS_INTEGRATION_V1,
  PACKAGE_BUILD_METADATA_V1,
  negotiateCompatibility,
  parseConsumerRequirements,
  parsePackageBuildMetadata,
} from './compatibility.js';
export type {
  CompatibilityComponent,
  CompatibilityIssue,
  CompatibilityIssueCode,
  CompatibilityReceipt,
  CompatibilityRequest,
  ConsumerRequirements,
  HarnessDriverDescriptor,
  PackageBuildMetadata,
} from './compatibility.js';
export { SECRET_MASK, displayLocator, maskSecrets, secretsIn } from './secrets.js';
export { jsonText, terminalText } from './terminal-text.js';
