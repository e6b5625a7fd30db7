// Pure judgements over what a qualification read: the tarball's package.json, the probe report's
// entry points, root exports and undeclared subpaths, and the conformance report. Each returns
// every issue found ([] means the check passes); none does I/O.
import { createSchemaAjv } from '@paperclip-evals/contract';

import type { ConformanceReport, QualificationIssue } from './record.js';
import type { Captured, ProbeError, ProbeReport } from './probe.js';

export const RUNNER_PACKAGE_NAME = '@paperclipai/paperclip-runner';
/** The entry points a consumer may import, and nothing else. */
export const PUBLIC_ENTRY_POINTS = ['.', './evals', './testing'] as const;
/**
 * Undeclared paths always tried (built output a consumer must not reach around the exports map):
 * where upstream's package builds its three entry points.
 */
export const ALWAYS_PROBED_SUBPATHS = ['dist/index.js', 'dist/evals/index.js', 'dist/testing.js'] as const;

/**
 * The files upstream's package ships under protocol/ that Evals reads from the extracted tarball
 * (never through the package's code): the native-execution schema and the two Evals fixtures.
 */
export const PROTOCOL_FILES = {
  nativeExecutionSchema: 'protocol/schemas/native-execution.schema.json',
  seededFixture: 'protocol/fixtures/evals/native-execution-seeded.json',
  conformanceFixture: 'protocol/fixtures/evals/harness-driver-conformance.json',
} as const;

/**
 * The exports Evals uses from each entry point, by upstream's names, and their `typeof` ('null'
 * and 'array' told apart; `a|b` accepts either). Nothing else is asked of the package.
 */
export const DOCUMENTED_EXPORTS: Readonly<Record<'./evals' | './testing', Readonly<Record<string, string>>>> =
  {
    './evals': {
      PAPERCLIP_RUNNER_BUILD_METADATA: 'object',
      PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256: 'string',
      CAPABILITY_SEMANTIC_TOOL_CATALOG: 'object|array',
      canonicalCapabilitySemanticCatalog: 'function',
      loadPaperclipNativeExecutionFixture: 'function',
      parsePaperclipNativeExecution: 'function',
      assertPaperclipRunnerEvalCompatibility: 'function',
      resolvePaperclipRunnerdArtifact: 'function',
    },
    './testing': {
      DeterministicHarnessDriver: 'function',
      runHarnessDriverConformance: 'function',
    },
  };

/** Upstream's ten harness-driver conformance checks: a report must carry each one, true. */
export const CONFORMANCE_CHECKS = [
  'capabilityDescription',
  'configValidation',
  'sessionLifecycle',
  'sessionRecovery',
  'semanticTools',
  'eventValidation',
  'interruptAndCancel',
  'usage',
  'transcriptCompleteness',
  'unsupportedFeatures',
] as const;

/** A root export whose name says it is a test double. */
export const TEST_DOUBLE_NAME = /fake|deterministic|conformance|mock|stub|testing/i;

/** SemVer 2.0.0 (semver.org's own expression). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** Dependency specs that point at the packer's machine rather than a registry. */
const LOCAL_SPEC = /^(?:file:|link:|workspace:|portal:|\.{0,2}\/)/;

export interface PackageManifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly exports?: unknown;
  readonly dependencies?: unknown;
  readonly optionalDependencies?: unknown;
  readonly peerDependencies?: unknown;
  readonly [field: string]: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The packed package.json: the runner's name, a SemVer version, the three entry points, no local specs. */
export function manifestIssues(manifest: PackageManifest): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  const file = 'package/package.json';
  if (manifest.name !== RUNNER_PACKAGE_NAME) {
    issues.push({
      code: 'package_name_mismatch',
      message: `the tarball packs ${JSON.stringify(manifest.name)}, not ${RUNNER_PACKAGE_NAME}`,
      entry: file,
      expected: RUNNER_PACKAGE_NAME,
      received: manifest.name ?? 'missing',
    });
  }
  if (typeof manifest.version !== 'string' || !SEMVER.test(manifest.version)) {
    issues.push({
      code: 'package_version_invalid',
      message: 'package.json has no valid SemVer version',
      entry: file,
      expected: 'a SemVer 2.0.0 version',
      received: manifest.version ?? 'missing',
    });
  }
  const exportKeys = isRecord(manifest.exports) ? Object.keys(manifest.exports) : [];
  for (const entryPoint of PUBLIC_ENTRY_POINTS) {
    if (!exportKeys.includes(entryPoint)) {
      issues.push({
        code: 'exports_entry_missing',
        message: `package.json "exports" does not declare ${entryPoint}`,
        entry: file,
        expected: entryPoint,
        received: isRecord(manifest.exports) ? exportKeys : (manifest.exports ?? 'missing'),
      });
    }
  }
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) {
    const specs = manifest[field];
    if (specs === undefined) continue;
    if (!isRecord(specs)) {
      issues.push({
        code: 'dependencies_invalid',
        message: `package.json "${field}" is not an object`,
        entry: file,
      });
      continue;
    }
    for (const [name, spec] of Object.entries(specs)) {
      if (typeof spec !== 'string' || LOCAL_SPEC.test(spec)) {
        issues.push({
          code: 'dependency_spec_local',
          message: `${field}.${name} is ${JSON.stringify(spec)}, which no consumer can install`,
          entry: file,
          expected: 'a registry version or range',
          received: spec,
        });
      }
    }
  }
  return issues;
}

/**
 * Subpaths (no leading `./`) the probe imports expecting ERR_PACKAGE_PATH_NOT_EXPORTED: every file
 * an exports target names, plus the built entry points, minus what the map itself declares.
 */
export function undeclaredSubpaths(manifest: PackageManifest): string[] {
  const declared = new Set(isRecord(manifest.exports) ? Object.keys(manifest.exports) : ['.']);
  const targets = new Set<string>(ALWAYS_PROBED_SUBPATHS);
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith('./') && !value.includes('*')) targets.add(value.slice(2));
    } else if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) Object.values(value).forEach(collect);
  };
  collect(manifest.exports);
  return [...targets].filter((subpath) => !declared.has(`./${subpath}`)).sort();
}

/** V8's TypeError when code writes, adds, defines or deletes a property of a frozen object. */
const FROZEN_WRITE =
  /^Cannot (?:assign to read only property|add property|define property|redefine property|delete property)\b/;

/**
 * The package changed, or tried to change, what the probe observes with: the built-ins were not
 * frozen before it loaded (the probe must run under --frozen-intrinsics), it replaced a watched
 * global (globalThis.Object, process.stdout.write, ...), or one of its steps failed on writing a
 * frozen built-in (the attempt was stopped, and is refused all the same).
 */
export function tamperingIssues(report: ProbeReport): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  if (!report.intrinsicsFrozen) {
    issues.push({
      code: 'probe_intrinsics_not_frozen',
      message:
        'the probe ran with built-ins the package could change (node --frozen-intrinsics did not take effect)',
      expected: 'frozen built-ins',
      received: 'not frozen',
    });
  }
  for (const name of report.tampered) {
    issues.push({
      code: 'package_tampers_with_builtins',
      message: `the package replaced ${name}, which the probe observes with`,
      component: name,
      expected: `${name} as it was before the package loaded`,
      received: 'another value',
    });
  }
  const errors: [string, ProbeError][] = [];
  for (const entryPoint of PUBLIC_ENTRY_POINTS) {
    const loaded = report.entryPoints[entryPoint];
    if (!loaded.loaded) errors.push([`importing ${entryPoint}`, loaded.error]);
  }
  const evals = report.evals;
  if (evals !== null) {
    for (const [name, captured] of Object.entries({
      PAPERCLIP_RUNNER_BUILD_METADATA: evals.buildMetadata,
      CAPABILITY_SEMANTIC_TOOL_CATALOG: evals.semanticCatalog,
      canonicalCapabilitySemanticCatalog: evals.semanticCatalogText,
      PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256: evals.semanticCatalogSha256,
      loadPaperclipNativeExecutionFixture: evals.fixture,
    })) {
      if (!captured.ok) errors.push([name, captured.error]);
    }
    if (!evals.packageVerdict.ran) errors.push(['parsePaperclipNativeExecution', evals.packageVerdict.error]);
    for (const variant of evals.brokenVariants) {
      if (!variant.verdict.ran)
        errors.push([`parsePaperclipNativeExecution (${variant.name})`, variant.verdict.error]);
    }
  }
  if (report.conformance !== null && !report.conformance.ok)
    errors.push(['runHarnessDriverConformance', report.conformance.error]);
  for (const rejection of report.unhandledRejections) errors.push(['an unhandled rejection', rejection]);
  for (const [where, error] of errors) {
    if (error.name !== 'TypeError' || !FROZEN_WRITE.test(error.message)) continue;
    issues.push({
      code: 'package_tampers_with_builtins',
      message: `${where} failed trying to change a frozen built-in: ${error.message}`,
      component: where,
      expected: 'no write to a built-in',
      received: error,
    });
  }
  return issues;
}

/** Each public entry point loads and exports its documented names with the documented types. */
export function entryPointIssues(report: ProbeReport): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  for (const entryPoint of PUBLIC_ENTRY_POINTS) {
    const loaded = report.entryPoints[entryPoint];
    if (!loaded.loaded) {
      issues.push({
        code: 'entry_point_unloadable',
        message: `importing ${entryPoint} failed: ${loaded.error.name}: ${loaded.error.message}`,
        component: entryPoint,
        expected: 'the entry point loads',
        received: loaded.error,
      });
      continue;
    }
    if (entryPoint === '.') continue;
    const documented = DOCUMENTED_EXPORTS[entryPoint];
    for (const [name, type] of Object.entries(documented)) {
      const found = loaded.exports.find((candidate) => candidate.name === name);
      if (found === undefined) {
        issues.push({
          code: 'export_missing',
          message: `${entryPoint} does not export ${name}`,
          component: entryPoint,
          expected: `${name} (${type})`,
          received: 'missing',
        });
      } else if (!type.split('|').includes(found.type)) {
        issues.push({
          code: 'export_type_mismatch',
          message: `${entryPoint} exports ${name} as ${found.type}, not ${type}`,
          component: entryPoint,
          expected: type,
          received: found.type,
        });
      }
    }
  }
  return issues;
}

/**
 * The root entry point exports contracts only: no test double by name, and no value that ./testing
 * exports under another name (an aliased test double). ./testing may re-export the root's own
 * names, as upstream's does (`export * from "./index.js"`).
 */
export function rootExportIssues(report: ProbeReport): QualificationIssue[] {
  const root = report.entryPoints['.'];
  if (!root.loaded) return [];
  const issues: QualificationIssue[] = [];
  for (const item of root.exports) {
    if (TEST_DOUBLE_NAME.test(item.name)) {
      issues.push({
        code: 'root_export_test_double',
        message: `the root entry point exports ${item.name}, whose name marks a test double (Fake, Deterministic, Conformance, Mock, Stub, Testing)`,
        component: '.',
        expected: 'contracts only; test doubles live in ./testing',
        received: item.name,
      });
    }
    const aliases = item.sameAsTesting.filter((name) => name !== item.name);
    if (aliases.length > 0) {
      issues.push({
        code: 'root_export_shared_with_testing',
        message: `the root entry point's ${item.name} is the very ${item.type} ./testing exports as ${aliases.join(', ')}`,
        component: '.',
        expected: 'no value ./testing exports under another name',
        received: { name: item.name, sameAsTesting: item.sameAsTesting },
      });
    }
  }
  return issues;
}

/** Every undeclared subpath was refused by Node with ERR_PACKAGE_PATH_NOT_EXPORTED. */
export function undeclaredSubpathIssues(report: ProbeReport): QualificationIssue[] {
  return report.undeclared
    .filter((attempt) => attempt.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED')
    .map((attempt) => ({
      code: 'undeclared_subpath_not_refused',
      message:
        attempt.code === null
          ? `${attempt.specifier} loaded although the exports map does not declare it`
          : `${attempt.specifier} failed with ${attempt.code}, not ERR_PACKAGE_PATH_NOT_EXPORTED: ${attempt.message}`,
      component: attempt.specifier,
      expected: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      received: attempt.code ?? 'loaded',
    }));
}

const CONFORMANCE_REPORT_SCHEMA = {
  type: 'object',
  required: ['contractVersion', 'descriptor', 'checks', 'semanticToolCallCount'],
  properties: {
    contractVersion: { type: 'integer', minimum: 1 },
    descriptor: {
      type: 'object',
      required: ['kind', 'version', 'protocolVersion', 'capabilities'],
      properties: {
        kind: { type: 'string', minLength: 1 },
        version: { type: 'string', minLength: 1 },
        protocolVersion: { type: 'string', pattern: '^prp\\.v[1-9][0-9]*$' },
        capabilities: { type: 'object' },
      },
    },
    checks: { type: 'object' },
    semanticToolCallCount: { type: 'integer', minimum: 0 },
  },
} as const;

let conformanceValidator: ReturnType<ReturnType<typeof createSchemaAjv>['compile']> | undefined;

export interface ConformanceJudgement {
  /** The report, when it has the documented shape (whether or not every check is true). */
  readonly report: ConformanceReport | null;
  readonly issues: QualificationIssue[];
}

/**
 * The conformance run (upstream's contract: a report whose checks are all true, or a throw):
 * it returned a report of the documented shape, each of upstream's ten checks is there and every
 * check is exactly true, and the driver's contract version is the package's.
 */
export function judgeConformance(
  captured: Captured,
  harnessDriverVersion: number | null,
): ConformanceJudgement {
  if (!captured.ok) {
    return {
      report: null,
      issues: [
        {
          code: 'conformance_threw',
          message: `runHarnessDriverConformance failed: ${captured.error.name}: ${captured.error.message}`,
          expected: 'a conformance report',
          received: captured.error,
        },
      ],
    };
  }
  conformanceValidator ??= createSchemaAjv().compile(CONFORMANCE_REPORT_SCHEMA);
  if (conformanceValidator(captured.value) !== true) {
    return {
      report: null,
      issues: (conformanceValidator.errors ?? []).map((error) => ({
        code: 'conformance_report_invalid',
        message: `conformance report ${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message ?? 'is invalid'}`,
        path: error.instancePath,
        expected: error.keyword,
        received: error.params,
      })),
    };
  }
  const report = captured.value as ConformanceReport;
  const issues: QualificationIssue[] = [];
  for (const name of CONFORMANCE_CHECKS) {
    if (!(name in report.checks)) {
      issues.push({
        code: 'conformance_check_missing',
        message: `the conformance report has no ${name} check`,
        component: name,
        path: `/checks/${name}`,
        expected: true,
        received: 'missing',
      });
    }
  }
  for (const name of Object.keys(report.checks).sort()) {
    if (report.checks[name] !== true) {
      issues.push({
        code: 'conformance_check_failed',
        message: `conformance check ${name} is not true`,
        component: name,
        path: `/checks/${name}`,
        expected: true,
        received: report.checks[name] ?? null,
      });
    }
  }
  if (harnessDriverVersion !== null && report.contractVersion !== harnessDriverVersion) {
    issues.push({
      code: 'conformance_contract_version_mismatch',
      message: `the conformance report is for harness-driver contract ${report.contractVersion}, the package declares ${harnessDriverVersion}`,
      expected: harnessDriverVersion,
      received: report.contractVersion,
    });
  }
  return { report, issues };
}
