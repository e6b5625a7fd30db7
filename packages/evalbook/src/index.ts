// Public surface of @paperclip-evals/evalbook: only what other packages import (pinned by
// scripts/public-surface.test.ts); the package's own tests import its `src/` files directly.
export { isEvalbookError } from './errors.js';
export type { EvalbookErrorCode } from './errors.js';
export { displayUsd } from './ledger/cost.js';
export {
  caseOf,
  definitionDigest,
  driftThresholdsOf,
  loadEnvironment,
  // campaign's tests build an environment from an object (loadEnvironment reads a file).
  parseEnvironment,
  starterEnvironment,
} from './ledger/environment.js';
export type { Environment, EnvironmentCase, EnvironmentConfig } from './ledger/environment.js';
// scripts/bench/report-bench.ts fills a SQLite ledger with converted records directly.
export {
  NO_NATIVE_EVIDENCE,
  artifactCost,
  artifactCountsText,
  artifactSuiteFields,
  convertBundle,
} from './ledger/convert.js';
export type { AttemptKey, LedgerRecord } from './ledger/convert.js';
export {
  checkRetractionRequest,
  leftOutText,
  nothingCountedText,
  retractionText,
} from './ledger/retraction.js';
export type { Retraction, RetractionOutcome } from './ledger/retraction.js';
export type { PolicyDecision, PolicyVerdictInput, PolicyVerdictOutcome } from './ledger/policy-verdicts.js';
export { DEFAULT_STORE_URL, checkSqliteTarget, openStore, sqliteStorePath } from './ledger/open-store.js';
export { migrateStore } from './ledger/migrate-store.js';
export type { StoreMigration } from './ledger/migrate-store.js';
export type { StoreSource } from './ledger/open-store.js';
export type { LedgerStore, RunCounts, StoredAttempt } from './ledger/store.js';
export { currentCampaigns } from './ledger/campaign-records.js';
export type { CampaignRecordOutcome } from './ledger/campaign-records.js';
export { assertGatesJudgeable, decideGates } from './analysis/gates.js';
export type { FailOn, GateVerdicts } from './analysis/gates.js';
export { PROGRESS_EVERY, assertReportOptions, writeReport } from './report/report.js';
// The attempt replay: the model and its one renderer (the report's drill-down, `evals report
// --attempt`, the published site's attempt pages).
export { buildAttemptReplay, loadAttemptReplay } from './report/attempt-replay.js';
export type { AttemptReplay } from './report/attempt-replay.js';
export { renderAttemptPage } from './report/html/attempt-page.js';
export type { JsonReport, ReportFormat, ReportResult } from './report/model.js';
export { attemptVerdict, withExpectedChecks } from './analysis/scoring.js';
export { summariseStore } from './analysis/summary.js';
export type { CompareSpec, Comparison, EvalbookSummary } from './analysis/summary.js';
export { gridScopeText, isLatestCell, shownGrid, trendText, viewOf } from './analysis/grid-view.js';
export type { GridView, ShownView } from './analysis/grid-view.js';
export { SqliteStore } from './ledger/sqlite-store.js';
export {
  checkArtifactRoot,
  ingest,
  ingestArtifactCountsText,
  ingestExitCode,
  verifyReferences,
} from './ledger/ingest.js';
export type { CaseCheckModels, IngestOptions, IngestProgress, IngestSummary } from './ledger/ingest.js';
// The published site (issue 19): app's publishSite / verifySite / serveSite call these.
export { ATTEMPT_PAGE_SIZE, writeAttemptPages, writeCampaignPages } from './report/site/campaign-pages.js';
export { SITE_CSP, renderSiteIndex, siteScriptHashes } from './report/site/site-html.js';
export { campaignFolder } from './report/site/site-names.js';
export {
  SITE_CAMPAIGN_V1,
  SITE_MANIFEST_V1,
  buildHistory,
  latestOf,
  refreshOf,
} from './report/site/site-model.js';
export type { SiteCampaign, SiteHistory, SiteLatest } from './report/site/site-model.js';
