// Public surface of @paperclip-evals/contract: explicit named exports only.
export { outputTarget, STDOUT_PATH, writeOutputFile } from './output-file.js';
export type { OutputIssueCode, OutputTarget, OutputTargetOptions } from './output-file.js';
export { STDIN_INPUT, expandBundleInputs, isFileSystemError } from './bundle-inputs.js';
export type { BundleInput } from './bundle-inputs.js';
export { MARKDOWN_BREAK, markdownText } from './markdown-text.js';
export { canonicalBytes, canonicalize, hasLoneSurrogate } from './canonical-json.js';
export { digestContainedFile } from './contained-file.js';
export type { ContainedFile, ContainedFileRefusal } from './contained-file.js';
export {
  SHA256_DIGEST_PATTERN,
  canonicalDigest,
  digestFile,
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
export { readNativeExecutionFile, readNativeExecutionStream } from './native-execution-input.js';
export type { NativeExecutionInput } from './native-execution-input.js';
export { NATIVE_EXECUTION_RULES } from './native-execution-rules.js';
export type { NativeExecutionRule, NativeExecutionRuleCode } from './native-execution-rules.js';
export { readJsonDocument, MAX_DOCUMENT_BYTES } from './json-file.js';
export {
  SIGNAL_EXIT_CODES,
  cleanUpGuarded,
  guardPrivatePath,
  guardProcessGroup,
  guardedCounts,
  killProcessGroup,
} from './child-cleanup.js';
export type { CleanupSignal } from './child-cleanup.js';
export {
  DEFAULT_MAX_EXECUTABLE_BYTES,
  DEFAULT_MAX_METADATA_BYTES,
  DEFAULT_METADATA_TIMEOUT_MS,
  RUNNERD_BUILD_METADATA_V1,
  assertRunnerdBuildMetadata,
  isRunnerdBuildMetadata,
  parseRunnerdBuildMetadata,
  resolveRunnerdArtifact,
  runnerdBuildMetadataIssues,
  stageVerifiedExecutable,
} from './runnerd-artifact.js';
export type {
  ResolveRunnerdArtifactOptions,
  RunnerdArtifact,
  RunnerdArtifactIssue,
  RunnerdArtifactIssueCode,
  RunnerdBuildMetadata,
  StageVerifiedExecutableOptions,
  StagedExecutable,
} from './runnerd-artifact.js';
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
