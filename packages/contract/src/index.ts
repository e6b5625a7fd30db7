// Public surface of @paperclip-evals/contract: explicit named exports only. The contract is pure —
// no child processes, no file writes (its I/O half is @paperclip-evals/node). Only what other
// packages import (pinned by scripts/public-surface.test.ts); the package's own tests import its
// `src/` files directly.
export { markdownText } from './markdown-text.js';
export { canonicalize } from './canonical-json.js';
export { canonicalDigest, digestStream, digestsEqual, isSha256Digest, sha256Digest } from './digest.js';
export type { Sha256Digest, StreamDigest } from './digest.js';
export { CodedError, ContractError, isContractError, pointer } from './errors.js';
export type { ContractErrorCode, Issue } from './errors.js';
export {
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  duplicateKeyIssues,
  readJsonText,
} from './json-text.js';
export type { JsonTextLimits } from './json-text.js';
export type { NativeExecutionRuleCode } from './native-execution-rules.js';
export { instantMs } from './native-execution-fields.js';
export {
  SCHEMA_IDS,
  createSchemaAjv,
  schemaErrors,
  schemaDocument,
  schemaIssuesOf,
} from './schema-registry.js';
export {
  assertNativeExecution,
  invalidNativeExecution,
  nativeExecutionIssues,
  parseNativeExecution,
} from './native-execution.js';
export type { ParseNativeExecutionOptions } from './native-execution.js';
export type {
  NativeExecution,
  PrpEvent,
  SemanticToolDenial,
  SemanticToolResult,
  ToolOutcome,
} from './native-execution-types.js';
export { NATIVE_EXECUTION_V1 } from './native-execution-types.js';
export {
  EVAL_SESSION_ARTIFACT_V1,
  EVAL_SESSION_PROVIDER_DRIVERS,
  INFRASTRUCTURE_FAILURE_CLASSES,
  ORCHESTRATION_FAILURE_CLASSES,
  assertEvalSessionArtifact,
  evalSessionArtifactIssues,
  invalidArtifact,
  isMissingCellArtifact,
  parseEvalSessionArtifact,
} from './eval-session-artifact.js';
export type {
  AnyEvalSessionArtifact,
  EvalSessionArtifact,
  MissingCellArtifact,
} from './eval-session-artifact.js';
export {
  additionalRunnerdFields,
  declaredBuildProfile,
  describeJsonType,
  runnerdArtifactInvalid,
  runnerdMetadataFromStdout,
} from './runnerd-metadata.js';
export type {
  RunnerdArtifactIssue,
  RunnerdArtifactIssueCode,
  RunnerdBuildMetadata,
} from './runnerd-metadata.js';
export {
  negotiateCompatibility,
  parseConsumerRequirements,
  parsePackageBuildMetadata,
} from './compatibility.js';
export type {
  CompatibilityReceipt,
  ConsumerRequirements,
  HarnessDriverDescriptor,
  PackageBuildMetadata,
} from './compatibility.js';
export {
  credentialShapedValues,
  decodeCharacterReferences,
  displayLocator,
  maskCredentialShapes,
  maskSecrets,
  maskSecretsIn,
  readerText,
  scrubCredentials,
  secretsIn,
} from './secrets.js';
export { jsonText, terminalText } from './terminal-text.js';
export { shellCommand } from './shell-word.js';
