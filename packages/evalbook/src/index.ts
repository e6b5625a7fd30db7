// Public surface of @paperclip-evals/evalbook: explicit named exports only.
export {
  CostInputError,
  CostRangeError,
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
} from './cost.js';
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
} from './cost.js';
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
} from './environment.js';
export type {
  CaseCheck,
  CaseCheckType,
  Environment,
  EnvironmentCase,
  EnvironmentConfig,
} from './environment.js';
export {
  artifactCountsText,
  attemptArtifactVerification,
  convertBundle,
  engineScoreRows,
  environmentMismatch,
  scoreRows,
} from './convert.js';
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
} from './convert.js';
export {
  RetractionError,
  RetractionIndex,
  checkRetractionRequest,
  isForeign,
  leftOutText,
  planRetraction,
  retractionText,
} from './retraction.js';
export type { LeftOutReason, Retraction, RetractionOutcome, RetractionRequest } from './retraction.js';
export { POLICY_AGREEMENTS } from './policy-verdicts.js';
export type {
  PolicyAgreement,
  PolicyDecision,
  PolicyVerdict,
  PolicyVerdictInput,
  PolicyVerdictOutcome,
} from './policy-verdicts.js';
export { DEFAULT_STORE_URL, StoreError, openStore } from './store.js';
export type {
  DriftRunRecord,
  InsertOutcome,
  LedgerStore,
  OpenStoreOptions,
  RunCounts,
  StoredAttempt,
} from './store.js';
export { assertGatesJudgeable, decideGates, failOnText, needsComparison } from './gates.js';
export type { FailOn, GateResult, GateVerdicts } from './gates.js';
export { HTML_MAX_ATTEMPTS, REPORT_FORMATS, REPORT_V1, reportAttempt, writeReport } from './report.js';
export type {
  JsonReport,
  ReportAttempt,
  ReportBudget,
  ReportFormat,
  ReportOptions,
  ReportResult,
} from './report.js';
export { ATTEMPT_STATUSES, attemptVerdict, withExpectedChecks } from './scoring.js';
export type { AttemptStatus, AttemptVerdict } from './scoring.js';
export { SUMMARY_V1, ScopeError, SummaryBuilder, summariseStore } from './summary.js';
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
} from './summary.js';
export { SQLITE_MIGRATIONS, SqliteStore, migrate } from './sqlite-store.js';
export { POSTGRES_MIGRATIONS, PostgresStore, migratePostgres } from './postgres-store.js';
export { IngestUsageError, foreignIssue, ingest, ingestExitCode, verifyReferences } from './ingest.js';
export type {
  CaseCheckModels,
  IngestConflict,
  IngestForeign,
  IngestOptions,
  IngestProgress,
  IngestStoreRefusal,
  IngestSummary,
} from './ingest.js';
export {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  StatisticsRangeError,
  Z_95,
  clusteredBootstrapInterval,
  mcnemarExact,
  pairedBootstrapDifference,
  passAtK,
  passHatK,
  wilsonInterval,
} from './statistics.js';
export type { BootstrapOptions, Cluster, DifferenceInterval, RateInterval, RatePair } from './statistics.js';
