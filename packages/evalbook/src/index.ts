// Public surface of @paperclip-evals/evalbook: explicit named exports only.
export { EvalbookError, isEvalbookError } from './errors.js';
export type { EvalbookErrorCode } from './errors.js';
export {
  CoverageTally,
  MAX_NANODOLLARS,
  PRICE_DECIMALS,
  attemptCost,
  checkBudget,
  costCoverage,
  estimateNanodollars,
  formatUsd,
  microsToNanodollars,
  priceToMicros,
} from './ledger/cost.js';
export type {
  AttemptCost,
  BudgetCheck,
  CostCoverage,
  CostInputs,
  CoverageSummary,
  ModelPrice,
  PricingTable,
  ReportedCost,
  TokenUsage,
} from './ledger/cost.js';
export {
  ENVIRONMENT_SCHEMA_ID,
  ENVIRONMENT_V1,
  caseOf,
  configOf,
  driftThresholdsOf,
  loadEnvironment,
  caseAssertions,
  caseCheckIssues,
  parseEnvironment,
  starterEnvironment,
} from './ledger/environment.js';
export type {
  CaseCheck,
  CaseCheckType,
  Environment,
  EnvironmentCase,
  EnvironmentCampaign,
  EnvironmentConfig,
  EnvironmentLane,
  EnvironmentLimits,
} from './ledger/environment.js';
export {
  artifactCountsText,
  attemptArtifactVerification,
  ARTIFACT_CASE_ID,
  ARTIFACT_RUN_ID,
  NO_NATIVE_EVIDENCE,
  artifactSuiteFields,
  convertArtifact,
  convertBundle,
  engineScoreRows,
  environmentMismatch,
  scoreRows,
} from './ledger/convert.js';
export type {
  ArtifactCounts,
  AttemptKey,
  ConvertOptions,
  EnvironmentMismatch,
  LedgerRecord,
  ReferenceRecord,
  ReferenceVerification,
  ScoreRow,
  ScoreStatus,
  SuiteFields,
} from './ledger/convert.js';
export {
  RetractionIndex,
  checkRetractionRequest,
  isForeign,
  leftOutText,
  planRetraction,
  retractionText,
} from './ledger/retraction.js';
export type { LeftOutReason, Retraction, RetractionOutcome, RetractionRequest } from './ledger/retraction.js';
export { POLICY_AGREEMENTS } from './ledger/policy-verdicts.js';
export type {
  PolicyAgreement,
  PolicyDecision,
  PolicyVerdict,
  PolicyVerdictInput,
  PolicyVerdictOutcome,
} from './ledger/policy-verdicts.js';
export { DEFAULT_STORE_URL, openStore } from './ledger/open-store.js';
export type { OpenStoreOptions } from './ledger/open-store.js';
export type { DriftRunRecord, InsertOutcome, LedgerStore, RunCounts, StoredAttempt } from './ledger/store.js';
export { assertGatesJudgeable, decideGates, failOnText, needsComparison } from './analysis/gates.js';
export type { FailOn, GateResult, GateVerdicts } from './analysis/gates.js';
export { HTML_MAX_ATTEMPTS, REPORT_FORMATS, REPORT_V1, reportAttempt } from './report/model.js';
export { writeReport } from './report/report.js';
export type { JsonReport, ReportAttempt, ReportBudget, ReportFormat, ReportResult } from './report/model.js';
export type { ReportOptions } from './report/report.js';
export { ATTEMPT_STATUSES, attemptVerdict, withExpectedChecks } from './analysis/scoring.js';
export type { AttemptStatus, AttemptVerdict } from './analysis/scoring.js';
export { SUMMARY_V1, SummaryBuilder, summariseStore } from './analysis/summary.js';
export type {
  CaseDelta,
  Comparison,
  CompareSpec,
  ConfigStat,
  DenominatorPolicy,
  Denominator,
  EvalbookSummary,
  GridCell,
  PolicyStat,
  RateWithInterval,
  StatusCounts,
  SummaryOptions,
  TrendPoint,
} from './analysis/summary.js';
export { SQLITE_MIGRATIONS, SqliteStore, migrate } from './ledger/sqlite-store.js';
export { POSTGRES_MIGRATIONS, PostgresStore, migratePostgres } from './ledger/postgres-store.js';
export { foreignIssue, ingest, ingestExitCode, verifyReferences } from './ledger/ingest.js';
export type {
  CaseCheckModels,
  IngestConflict,
  IngestForeign,
  IngestOptions,
  IngestProgress,
  IngestStoreRefusal,
  IngestSummary,
} from './ledger/ingest.js';
export {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  Z_95,
  clusteredBootstrapInterval,
  mcnemarExact,
  pairedBootstrapDifference,
  passAtK,
  passHatK,
  wilsonInterval,
} from './analysis/statistics.js';
export type {
  BootstrapOptions,
  Cluster,
  DifferenceInterval,
  RateInterval,
  RatePair,
} from './analysis/statistics.js';
