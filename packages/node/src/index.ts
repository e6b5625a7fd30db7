// Public surface of @paperclip-evals/node, the Node runtime layer: explicit named exports only.
// Its errors are contract's ContractError codes (see README.md). Only what other packages import
// (pinned by scripts/public-surface.test.ts); the package's own tests import its `src/` files directly.
export { runBounded, runFailure } from './bounded-run.js';
export { startKillableRun } from './killable-run.js';
export type { KillableRun, KillableRunResult } from './killable-run.js';
export {
  STDIN_INPUT,
  expandBundleInputs,
  fileSystemText,
  fileSystemWhat,
  isFileSystemError,
} from './bundle-inputs.js';
export type { BundleInput } from './bundle-inputs.js';
export { readBundles } from './bundle-reads.js';
export type { BundleRead } from './bundle-reads.js';
export { readAttemptInputs } from './attempt-inputs.js';
export { SIGNAL_EXIT_CODES, guardPrivatePath, guardedCounts, noticeOnStop } from './child-cleanup.js';
export { ChildTransport } from './child-transport.js';
export type { ChildExit } from './child-transport.js';
export { checkContainedReference, digestContainedFile } from './contained-file.js';
export type { ContainedFileRefusal } from './contained-file.js';
export { digestFile, regularFileChunks } from './file-digest.js';
export { turnIfDue } from './event-loop-turn.js';
export {
  FILE_KINDS,
  FILE_KIND_PHRASE,
  NOT_REGULAR_ADVICE,
  fileKindOf,
  notRegularMessage,
} from './file-kind.js';
export type { FileKind } from './file-kind.js';
export { readJsonDocument } from './json-file.js';
export { LineReader, lineEvents, writeFrames } from './line-framing.js';
export type { LineEvent } from './line-framing.js';
export {
  readNativeExecutionFile,
  readRegularFile,
  readRegularFileSync,
  readNativeExecutionStream,
  notRegularKindOf,
} from './native-execution-input.js';
export { readAttemptFile, readAttemptReadFile } from './attempt-input.js';
export type { AttemptInput, EvalSessionEvidence, ReadAttemptOptions } from './attempt-input.js';
export type { NativeExecutionInput } from './native-execution-input.js';
export {
  STDOUT_PATH,
  fullDiskError,
  outputTarget,
  stdioWriteFailed,
  writeOutputFile,
} from './output-file.js';
export { outputConflictIssues, outputConflictText, outputConflicts } from './output-apart.js';
export type { NamedPath } from './output-apart.js';
export { resolveRunnerdArtifact } from './runnerd-artifact.js';
export type { RunnerdArtifact } from './runnerd-artifact.js';
export { DEFAULT_MAX_EXECUTABLE_BYTES, stageVerifiedExecutable } from './staged-executable.js';
export type { StagedExecutable } from './staged-executable.js';
