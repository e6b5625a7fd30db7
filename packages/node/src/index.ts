// Public surface of @paperclip-evals/node, the Node runtime layer: explicit named exports only.
// Its errors are contract's ContractError codes (see README.md).
export { DEFAULT_MAX_STDERR_BYTES, KILL_GRACE_MS, runBounded, runFailure } from './bounded-run.js';
export { startKillableRun } from './killable-run.js';
export type { KillableRun, KillableRunOptions, KillableRunResult } from './killable-run.js';
export type { BoundedRunOptions, BoundedRunResult } from './bounded-run.js';
export {
  STDIN_INPUT,
  expandBundleInputs,
  fileSystemText,
  fileSystemWhat,
  isFileSystemError,
} from './bundle-inputs.js';
export type { BundleInput } from './bundle-inputs.js';
export { readBundles } from './bundle-reads.js';
export type { BundleRead, ReadBundlesOptions } from './bundle-reads.js';
export {
  SIGNAL_EXIT_CODES,
  cleanUpGuarded,
  guardPrivatePath,
  guardProcessGroup,
  guardedCounts,
  killProcessGroup,
} from './child-cleanup.js';
export type { CleanupSignal } from './child-cleanup.js';
export { ChildTransport } from './child-transport.js';
export type { ChildExit, ChildTransportOptions } from './child-transport.js';
export { checkContainedReference, digestContainedFile } from './contained-file.js';
export type { ContainedFile, ContainedFileRefusal, ExpectedFile, ReferenceCheck } from './contained-file.js';
export { digestFile } from './file-digest.js';
export { MAX_DOCUMENT_BYTES, readJsonDocument } from './json-file.js';
export { LineReader, lineEvents, writeFrames } from './line-framing.js';
export type { LineEvent } from './line-framing.js';
export {
  readFileBytes,
  readNativeExecutionFile,
  readNativeExecutionStream,
  readStreamBytes,
} from './native-execution-input.js';
export {
  parseAttemptBytes,
  parseAttemptRead,
  readAttemptFile,
  readAttemptReadFile,
  readAttemptReadStream,
  readAttemptStream,
} from './attempt-input.js';
export type {
  ArtifactOnlyInput,
  AttemptInput,
  AttemptRead,
  EvalSessionEvidence,
  ReadAttemptOptions,
} from './attempt-input.js';
export type { NativeExecutionInput } from './native-execution-input.js';
export { STDOUT_PATH, outputTarget, writeOutputFile } from './output-file.js';
export type { OutputIssueCode, OutputTarget, OutputTargetOptions } from './output-file.js';
export {
  DEFAULT_MAX_METADATA_BYTES,
  DEFAULT_METADATA_TIMEOUT_MS,
  RUNNERD_STAGING_DIR_PREFIX,
  resolveRunnerdArtifact,
} from './runnerd-artifact.js';
export type { ResolveRunnerdArtifactOptions, RunnerdArtifact } from './runnerd-artifact.js';
export { DEFAULT_MAX_EXECUTABLE_BYTES, stageVerifiedExecutable } from './staged-executable.js';
export type { StageVerifiedExecutableOptions, StagedExecutable } from './staged-executable.js';
