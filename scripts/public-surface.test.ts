// Pins the public surface of every Evals package (app, campaign, checks, contract, evalbook, node,
// policy, qualification; not the reference runner, whose surface is upstream's App surface, pinned by
// its own tests): each package's `src/index.ts` exports exactly the names listed below (a sorted
// list per package), and every one of them is imported by some file outside the package (another
// package's `src/` or `test/`, or `scripts/`). The package's own tests import its `src/` files
// directly, never its index.
//
// To change a surface on purpose: edit the package's `src/index.ts`, then the package's list in
// SURFACES (sorted, as `[...names].sort()` orders them). A name nobody outside imports does not
// belong in the index: import it from its file inside the package instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const SURFACES: Record<string, readonly string[]> = {
  app: [
    'AppError',
    'AppErrorCode',
    'PolicyReplayCall',
    'PolicyReplayOutcome',
    'PolicyReplayRequest',
    'StoredCounts',
    'isAppError',
  ],
  campaign: [
    'isShardMissing',
    'AttemptOutcome',
    'CampaignError',
    'CampaignErrorCode',
    'CampaignPhase',
    'CampaignPlan',
    'CampaignProgress',
    'CampaignRecord',
    'Shard',
    'assertLedgerRecordable',
    'assertRecordable',
    'executeCampaign',
    'mergeCampaignRecords',
    'mergeShardStores',
    'parseShard',
    'planCampaign',
    'planFromFiles',
    'readCampaignRecord',
    'runCampaign',
    'shardAttempts',
    'storeCampaignRecord',
    'writeCampaignRecord',
  ],
  checks: [
    'Assertion',
    'AssertionResult',
    'ChecksError',
    'ChecksErrorCode',
    'DEFAULT_STATIC_THRESHOLD',
    'DRIFT_MIN_STDDEV',
    'DRIFT_WINDOW_RUNS',
    'DriftHistory',
    'EngineServer',
    'EngineServerOptions',
    'LAYER_OF',
    'LOG_LEVELS',
    'Layer',
    'LogLevel',
    'ModelUsage',
    'Trace',
    'driftReport',
    'engineOptionsFromEnv',
    'evaluateAssertions',
    'isAssertionType',
    'jsonLogger',
    'serveStdio',
    'toTrace',
  ],
  contract: [
    'AnyEvalSessionArtifact',
    'CodedError',
    'CompatibilityReceipt',
    'ConsumerRequirements',
    'ContractError',
    'ContractErrorCode',
    'DEFAULT_MAX_INPUT_BYTES',
    'DEFAULT_MAX_JSON_DEPTH',
    'EVAL_SESSION_ARTIFACT_V1',
    'EVAL_SESSION_PROVIDER_DRIVERS',
    'EvalSessionArtifact',
    'HarnessDriverDescriptor',
    'INFRASTRUCTURE_FAILURE_CLASSES',
    'Issue',
    'JsonTextLimits',
    'NATIVE_EXECUTION_V1',
    'NativeExecution',
    'NativeExecutionRuleCode',
    'MissingCellArtifact',
    'ORCHESTRATION_FAILURE_CLASSES',
    'PackageBuildMetadata',
    'ParseNativeExecutionOptions',
    'PrpEvent',
    'RunnerdArtifactIssue',
    'RunnerdArtifactIssueCode',
    'RunnerdBuildMetadata',
    'SCHEMA_IDS',
    'SemanticToolDenial',
    'SemanticToolResult',
    'Sha256Digest',
    'StreamDigest',
    'ToolOutcome',
    'additionalRunnerdFields',
    'assertEvalSessionArtifact',
    'assertNativeExecution',
    'canonicalDigest',
    'canonicalize',
    'createSchemaAjv',
    'credentialShapedValues',
    'declaredBuildProfile',
    'decodeCharacterReferences',
    'describeJsonType',
    'digestStream',
    'digestsEqual',
    'displayLocator',
    'duplicateKeyIssues',
    'evalSessionArtifactIssues',
    'instantMs',
    'invalidArtifact',
    'invalidNativeExecution',
    'isContractError',
    'isMissingCellArtifact',
    'isSha256Digest',
    'jsonText',
    'markdownText',
    'maskCredentialShapes',
    'maskSecrets',
    'maskSecretsIn',
    'nativeExecutionIssues',
    'negotiateCompatibility',
    'parseConsumerRequirements',
    'parseEvalSessionArtifact',
    'parseNativeExecution',
    'parsePackageBuildMetadata',
    'pointer',
    'readJsonText',
    'readerText',
    'runnerdArtifactInvalid',
    'runnerdMetadataFromStdout',
    'schemaDocument',
    'schemaErrors',
    'schemaIssuesOf',
    'scrubCredentials',
    'secretsIn',
    'sha256Digest',
    'shellCommand',
    'terminalText',
  ],
  evalbook: [
    'ATTEMPT_PAGE_SIZE',
    'AttemptKey',
    'AttemptReplay',
    'CampaignRecordOutcome',
    'CaseCheckModels',
    'CompareSpec',
    'Comparison',
    'DEFAULT_STORE_URL',
    'Environment',
    'EnvironmentCase',
    'EnvironmentConfig',
    'EvalbookErrorCode',
    'EvalbookSummary',
    'FailOn',
    'GateVerdicts',
    'GridView',
    'IngestOptions',
    'IngestProgress',
    'IngestSummary',
    'JsonReport',
    'LedgerRecord',
    'LedgerStore',
    'NO_NATIVE_EVIDENCE',
    'PROGRESS_EVERY',
    'PolicyDecision',
    'PolicyVerdictInput',
    'PolicyVerdictOutcome',
    'ReportFormat',
    'ReportResult',
    'Retraction',
    'RetractionOutcome',
    'RunCounts',
    'SITE_CAMPAIGN_V1',
    'SITE_CSP',
    'SITE_MANIFEST_V1',
    'SiteCampaign',
    'SiteHistory',
    'ShownView',
    'SiteLatest',
    'SqliteStore',
    'StoredAttempt',
    'StoreMigration',
    'StoreSource',
    'migrateStore',
    'artifactCost',
    'artifactCountsText',
    'artifactSuiteFields',
    'assertGatesJudgeable',
    'assertReportOptions',
    'attemptVerdict',
    'buildAttemptReplay',
    'buildHistory',
    'campaignFolder',
    'caseOf',
    'checkArtifactRoot',
    'checkRetractionRequest',
    'checkSqliteTarget',
    'convertBundle',
    'currentCampaigns',
    'decideGates',
    'definitionDigest',
    'displayUsd',
    'driftThresholdsOf',
    'gridScopeText',
    'ingest',
    'ingestArtifactCountsText',
    'ingestExitCode',
    'isEvalbookError',
    'isLatestCell',
    'latestOf',
    'leftOutText',
    'loadAttemptReplay',
    'loadEnvironment',
    'nothingCountedText',
    'openStore',
    'parseEnvironment',
    'refreshOf',
    'renderAttemptPage',
    'renderSiteIndex',
    'retractionText',
    'shownGrid',
    'siteScriptHashes',
    'sqliteStorePath',
    'starterEnvironment',
    'summariseStore',
    'trendText',
    'viewOf',
    'withExpectedChecks',
    'writeAttemptPages',
    'writeCampaignPages',
    'writeReport',
    'verifyReferences',
  ],
  node: [
    'AttemptInput',
    'BundleInput',
    'BundleRead',
    'ChildExit',
    'ChildTransport',
    'ContainedFileRefusal',
    'DEFAULT_MAX_EXECUTABLE_BYTES',
    'EvalSessionEvidence',
    'FILE_KINDS',
    'FILE_KIND_PHRASE',
    'FileKind',
    'KillableRun',
    'KillableRunResult',
    'LineEvent',
    'LineReader',
    'NOT_REGULAR_ADVICE',
    'NamedPath',
    'NativeExecutionInput',
    'ReadAttemptOptions',
    'RunnerdArtifact',
    'SIGNAL_EXIT_CODES',
    'STDIN_INPUT',
    'STDOUT_PATH',
    'StagedExecutable',
    'checkContainedReference',
    'digestContainedFile',
    'digestFile',
    'expandBundleInputs',
    'fileKindOf',
    'fileSystemText',
    'fileSystemWhat',
    'fullDiskError',
    'guardPrivatePath',
    'guardedCounts',
    'isFileSystemError',
    'lineEvents',
    'notRegularKindOf',
    'notRegularMessage',
    'noticeOnStop',
    'outputConflictIssues',
    'outputConflictText',
    'outputConflicts',
    'outputTarget',
    'readAttemptFile',
    'readAttemptInputs',
    'readAttemptReadFile',
    'readBundles',
    'readJsonDocument',
    'readNativeExecutionFile',
    'readNativeExecutionStream',
    'readRegularFile',
    'readRegularFileSync',
    'regularFileChunks',
    'resolveRunnerdArtifact',
    'runBounded',
    'runFailure',
    'stageVerifiedExecutable',
    'startKillableRun',
    'stdioWriteFailed',
    'turnIfDue',
    'writeFrames',
    'writeOutputFile',
  ],
  policy: [
    'EvaluateSession',
    'PolicyError',
    'PolicyErrorCode',
    'ReplayAttemptsResult',
    'ReplaySession',
    'ToolCallComparison',
    'ToolCallRef',
    'handshake',
    'loadBundle',
    'replayAttempts',
    'replaySessions',
    'runEvaluate',
    'stateToJSON',
    'toolCallSessions',
    'zeroedRegisters',
  ],
  qualification: [
    'MAX_RELEASE_FILE_BYTES',
    'PINNED_PNPM',
    'QUALIFICATION_CHECK_IDS',
    'QualificationRecord',
    'QualifyReleaseOptions',
    'RUNNER_PACKAGE_NAME',
    'SHA256SUMS_FILE',
    'completeConsumerRequirements',
    'extractTarball',
    'installConsumer',
    'loadEvalsConsumerRequirements',
    'pnpmCommand',
    'qualificationRecordIssues',
    'qualifyRelease',
    'writeQualificationRecord',
    'releaseDirIssue',
  ],
};

/** `a, type B, c as d` → `['a', 'B', 'c']` (the exported name, before any local alias). */
function namesOf(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.replace(/\/\/[^\n]*/g, '').trim())
    .map((part) =>
      part
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter((name) => name !== '');
}

/** The names a package's index exports (it uses explicit `export { … } from` lists only). */
export function exportedNames(source: string): string[] {
  const names = [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g)].flatMap((m) =>
    namesOf(m[1]!),
  );
  return [...new Set(names)].sort();
}

/** A module specifier that names the index of `pkg`: the package name, or a path to its src/dist index. */
function specifierPattern(pkg: string): string {
  return `(?:@paperclip-evals/${pkg}|(?:\\.\\./)+(?:packages/)?${pkg}/(?:src|dist)/index\\.[jt]s)`;
}

/** The names `source` imports from the index of `pkg`: static, re-exported, destructured dynamic, or through a namespace. */
export function importedNames(source: string, pkg: string): string[] {
  const spec = specifierPattern(pkg);
  const names: string[] = [];
  for (const m of source.matchAll(
    new RegExp(`(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s*from\\s*'${spec}'`, 'g'),
  )) {
    names.push(...namesOf(m[1]!));
  }
  for (const m of source.matchAll(
    new RegExp(`const\\s+\\{([^}]*)\\}\\s*=\\s*await\\s+import\\('${spec}'\\)`, 'g'),
  )) {
    names.push(...namesOf(m[1]!));
  }
  const namespaces = [
    ...source.matchAll(
      new RegExp(
        `(?:const\\s+(\\w+)\\s*=\\s*await\\s+import\\(|import\\s+(?:type\\s+)?\\*\\s+as\\s+(\\w+)\\s+from\\s+)'${spec}'`,
        'g',
      ),
    ),
  ].map((m) => (m[1] ?? m[2])!);
  // A variable typed as the namespace (`policy: typeof Policy`, `… as typeof Policy`) reads it too.
  for (const namespace of [...namespaces]) {
    for (const m of source.matchAll(
      new RegExp(`(\\w+)\\s*(?::|=[^;]*\\bas)\\s*typeof\\s+${namespace}\\b`, 'g'),
    )) {
      namespaces.push(m[1]!);
    }
  }
  for (const namespace of new Set(namespaces)) {
    for (const m of source.matchAll(new RegExp(`\\b${namespace}\\.(\\w+)`, 'g'))) names.push(m[1]!);
  }
  return names;
}

/**
 * Whether a test of `pkg` imports the package's own index: by its name or by a path to
 * `src/index.ts`, in an import statement (a line that starts one, or the `} from` line ending one)
 * or a dynamic import — an import written inside a string is not one.
 */
export function importsOwnIndex(source: string, pkg: string): boolean {
  const own = `'(?:(?:\\.\\./)+src/index\\.[jt]s|@paperclip-evals/${pkg})'`;
  return new RegExp(
    `^(?:(?:import|export)\\b[^\\n]*|\\}\\s*)from\\s*${own}|\\bimport\\(\\s*${own}\\s*\\)`,
    'm',
  ).test(source);
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.(?:[mc]?ts|[mc]?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const SELF = relative(ROOT, fileURLToPath(import.meta.url));
// This file's own scanner table holds import lines as text: it is not a consumer.
const FILES = [...sourceFiles(join(ROOT, 'packages')), ...sourceFiles(join(ROOT, 'scripts'))]
  .map((path) => ({ path: relative(ROOT, path), source: readFileSync(path, 'utf8') }))
  .filter((file) => file.path !== SELF);

/** Each name of `pkg`'s index imported from outside the package → the files that import it. */
function outsideUses(pkg: string): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  for (const file of FILES) {
    if (file.path.startsWith(`packages/${pkg}/`)) continue;
    for (const name of importedNames(file.source, pkg))
      uses.set(name, [...(uses.get(name) ?? []), file.path]);
  }
  return uses;
}

describe('the scanner reads every import form in use (so an orphan report is real)', () => {
  it.each([
    ["import { a, type B, c as d } from '@paperclip-evals/checks';", ['a', 'B', 'c']],
    ["import type {\n  A,\n  B,\n} from '@paperclip-evals/checks';", ['A', 'B']],
    ["export { a } from '@paperclip-evals/checks';", ['a']],
    ["const { a, b } = await import('@paperclip-evals/checks');", ['a', 'b']],
    ["const m = await import('@paperclip-evals/checks');\nm.a(); m.b;", ['a', 'b']],
    ["import { a } from '../../packages/checks/dist/index.js';", ['a']],
    [
      "import type * as C from '../../packages/checks/src/index.ts';\nconst c = (await import(X)) as typeof C;\nc.a(); function f(d: typeof C) { d.b; }",
      ['a', 'b'],
    ],
    ["import { a } from '@paperclip-evals/checks-other';", []],
    ["import { a } from '@paperclip-evals/checks/sub';", []],
  ])('%j', (source, names) => {
    expect(importedNames(source, 'checks')).toEqual(names);
  });
});

describe('a test of the package importing its own index is found, and only then', () => {
  it.each([
    ["import { a } from '../src/index.ts';", true],
    ["import type { A } from '../../src/index.ts';", true],
    ["import {\n  a,\n} from '@paperclip-evals/node';", true],
    ["const { a } = await import('@paperclip-evals/node');", true],
    ["import { a } from '../src/line-framing.ts';", false],
    ["import { a } from '@paperclip-evals/contract';", false],
    [`  expect(scan("import { ChildTransport } from '@paperclip-evals/node';")).toBe(1);`, false],
  ])('%j → %s', (source, found) => {
    expect(importsOwnIndex(source, 'node')).toBe(found);
  });
});

describe.each(Object.keys(SURFACES))('the public surface of @paperclip-evals/%s', (pkg) => {
  const index = readFileSync(join(ROOT, `packages/${pkg}/src/index.ts`), 'utf8');

  it('is explicit named exports only (no `export *`)', () => {
    expect(index).not.toMatch(/export\s+(?:type\s+)?\*/);
  });

  it('is not imported by its own tests (they import the src/ file that owns a name)', () => {
    const offenders = FILES.filter(
      (file) => file.path.startsWith(`packages/${pkg}/test/`) && importsOwnIndex(file.source, pkg),
    );
    expect(offenders.map((file) => file.path)).toEqual([]);
  });

  it('exports exactly the pinned names', () => {
    expect(exportedNames(index)).toEqual([...SURFACES[pkg]!].sort());
  });

  it('exports no name that nobody outside the package imports', () => {
    const uses = outsideUses(pkg);
    expect(exportedNames(index).filter((name) => !uses.has(name))).toEqual([]);
  });

  it("is imported from outside only by the names it exports (the package's own tests use src/ files)", () => {
    const exported = new Set(exportedNames(index));
    expect([...outsideUses(pkg).keys()].filter((name) => !exported.has(name)).sort()).toEqual([]);
  });
});
