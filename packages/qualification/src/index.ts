// Public surface of @paperclip-evals/qualification: explicit named exports only.
export { qualifyRelease, WORK_DIR_PREFIX } from './qualify.js';
export type { QualifyReleaseOptions } from './qualify.js';
export {
  QUALIFICATION_CHECK_IDS,
  QUALIFICATION_RECORD_V1,
  QUALIFICATION_RECORD_V1_SCHEMA_ID,
  currentEvaluator,
  qualificationRecordIssues,
  writeQualificationRecord,
} from './record.js';
export type {
  CheckStatus,
  ConformanceReport,
  Evaluator,
  QualificationCheck,
  QualificationCheckId,
  QualificationIssue,
  QualificationRecord,
} from './record.js';
export {
  APP_RECORD_FILE,
  MAX_SHA256SUMS_BYTES,
  SHA256SUMS_FILE,
  parseSha256Sums,
  readReleaseLayout,
  runnerdFileName,
  verifySha256Sums,
} from './release-dir.js';
export type {
  ParsedSha256Sums,
  ReleaseEntry,
  ReleaseEntryKind,
  ReleaseLayout,
  Sha256SumsEntry,
  Sha256SumsVerification,
} from './release-dir.js';
export {
  DEFAULT_TARBALL_LIMITS,
  PACKAGE_ROOT,
  extractTarball,
  scanTarball,
  tarballEntriesIssues,
} from './tarball.js';
export type { TarballEntry, TarballExtraction, TarballLimits, TarballScan } from './tarball.js';
export { PINNED_PNPM, PNPM_COMMAND_ENV, pnpmCommand, pnpmEnvironment, sanitizedPath } from './processes.js';
export {
  DEFAULT_INSTALL_TIMEOUT_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  consumerIsolationIssues,
  installConsumer,
  runConsumerProbe,
} from './consumer.js';
export {
  DEFAULT_EVAL_SESSION_TIMEOUT_MS,
  EVALS_EVAL_SESSION_REQUEST_FILE,
  EVAL_SESSION_BIN,
  evalSessionBinOf,
  loadEvalSessionRequest,
  runEvalSessionCheck,
} from './eval-session.js';
export type {
  EvalSessionCheckResult,
  EvalSessionRequestIds,
  RunEvalSessionCheckOptions,
} from './eval-session.js';
export { APP_RECORD_SCHEMA, appRecordIssues, judgeAppRecord } from './app-record.js';
export type { AppRecordArtifact, AppRecordExpectations, AppRecordJudgement } from './app-record.js';
export { PROBE_REPORT_V1, PROBE_SOURCE, probeReportIssues } from './probe.js';
export type { Captured, ProbeInput, ProbeReport } from './probe.js';
export {
  ALWAYS_PROBED_SUBPATHS,
  CONFORMANCE_CHECKS,
  DOCUMENTED_EXPORTS,
  PROTOCOL_FILES,
  RUNNER_PACKAGE_NAME,
  TEST_DOUBLE_NAME,
  entryPointIssues,
  judgeConformance,
  manifestIssues,
  rootExportIssues,
  tamperingIssues,
  undeclaredSubpathIssues,
  undeclaredSubpaths,
} from './judgements.js';
export type { PackageManifest } from './judgements.js';
export {
  EVALS_CONSUMER_REQUIREMENTS_FILE,
  INCOMPATIBLE_PRP_RANGE,
  completeConsumerRequirements,
  incompatibleConsumerRequirements,
  loadEvalsConsumerRequirements,
} from './consumer-requirements.js';
