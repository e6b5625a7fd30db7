// ./evals: upstream's names, build metadata (upstream's contracts keys), the semantic catalog
// digest (recomputed with Evals' own canonicaliser), the App's native-execution parser and loader
// (and Evals' parser as a differential), negotiation and runnerd resolution failures; runnerd's
// metadata is upstream's eight fields, and the parser drops anything else a build prints.
import './support/protocol.js';

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  canonicalDigest,
  canonicalize,
  parseNativeExecution as evalsParseNativeExecution,
} from '../../contract/src/index.ts';
import { runnerdBuildMetadata } from '../src/build-info.js';
import * as evals from '../src/evals/index.js';
import {
  CAPABILITY_SEMANTIC_TOOL_CATALOG,
  PAPERCLIP_RUNNER_BUILD_METADATA,
  PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
  PaperclipNativeExecutionError,
  PaperclipRunnerEvalCompatibilityError,
  assertPaperclipRunnerEvalCompatibility,
  canonicalCapabilitySemanticCatalog,
  loadPaperclipNativeExecutionFixture,
  paperclipNativeExecutionFixtureUrl,
  paperclipNativeExecutionSchemaUrl,
  parsePaperclipNativeExecution,
  parsePaperclipRunnerdBuildMetadata,
  resolvePaperclipRunnerdArtifact,
} from '../src/evals/index.js';
import { DETERMINISTIC_DRIVER_DESCRIPTOR } from '../src/testing/deterministic-driver.js';
import { fileSha256, removeScratchDirs, scratchDir, shellExecutable } from './support/executables.js';
import { PACKAGE_DIR, repoSchemaValidator } from './support/paths.js';

import type {
  PaperclipNativeExecutionV1,
  PaperclipRunnerEvalCompatibilityRequirement,
  PaperclipRunnerdBuildMetadata,
} from '../src/evals/index.js';
import type { PaperclipRunnerError } from '../src/errors.js';

type DeepMutable<T> = { -readonly [K in keyof T]: DeepMutable<T[K]> };
type Bundle = DeepMutable<PaperclipNativeExecutionV1>;

const thrown = (run: () => unknown): PaperclipRunnerError => {
  try {
    run();
  } catch (error) {
    return error as PaperclipRunnerError;
  }
  throw new Error('expected a throw');
};

afterAll(removeScratchDirs);

describe('./evals', () => {
  it("exports upstream's names (the ones the issue and Evals' probe ask for among them), none of our old ones", () => {
    expect(Object.keys(evals)).toEqual(
      expect.arrayContaining([
        'parsePaperclipNativeExecution',
        'loadPaperclipNativeExecutionFixture',
        'resolvePaperclipRunnerdArtifact',
        'assertPaperclipRunnerEvalCompatibility',
        'PAPERCLIP_RUNNER_BUILD_METADATA',
        'PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256',
        'CAPABILITY_SEMANTIC_TOOL_CATALOG',
        'canonicalCapabilitySemanticCatalog',
        'paperclipNativeExecutionSchemaUrl',
        'paperclipNativeExecutionFixtureUrl',
        'PaperclipNativeExecutionError',
        'PaperclipRunnerdArtifactError',
        'PaperclipRunnerEvalCompatibilityError',
      ]),
    );
    for (const old of [
      'parseNativeExecution',
      'loadSeededNativeExecutionFixture',
      'parseRunnerdBuildMetadata',
      'NATIVE_EXECUTION_SCHEMA',
      'SEMANTIC_CATALOG',
      'SEMANTIC_CATALOG_SHA256',
      'canonicalSha256',
      'CONTRACT_VERSIONS',
      'EVALS_INTEGRATION_SCHEMA',
      'parseEvalSessionRequest',
      'PaperclipRunnerError',
    ])
      expect(Object.keys(evals), old).not.toContain(old);
  });
});

describe('PAPERCLIP_RUNNER_BUILD_METADATA', () => {
  it("has upstream's contracts keys, and is frozen all the way down", () => {
    expect(Object.keys(PAPERCLIP_RUNNER_BUILD_METADATA.contracts).sort()).toEqual(
      [
        'controlPlaneAdapter',
        'evalIntegration',
        'harnessDriver',
        'nativeExecution',
        'prp',
        'runnerdArtifact',
        'semanticCatalog',
        'testkit',
      ].sort(),
    );
    expect(Object.isFrozen(PAPERCLIP_RUNNER_BUILD_METADATA.contracts)).toBe(true);
    expect(Object.isFrozen(PAPERCLIP_RUNNER_BUILD_METADATA.semanticCatalog)).toBe(true);
  });

  it('validates against schemas/runner/package-build-metadata-v1.schema.json', () => {
    expect(
      repoSchemaValidator('runner/package-build-metadata-v1.schema.json')(PAPERCLIP_RUNNER_BUILD_METADATA),
    ).toEqual([]);
  });

  it("carries the version of the package's own package.json", () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(PAPERCLIP_RUNNER_BUILD_METADATA.package).toEqual({
      name: '@paperclipai/paperclip-runner',
      version: manifest.version,
    });
  });

  it("and runnerd's metadata, made from the same constants, is upstream's eight fields and validates", () => {
    const metadata = runnerdBuildMetadata();
    expect(Object.keys(metadata).sort()).toEqual(
      [
        'binaryContractVersion',
        'binaryName',
        'harnessDriverVersion',
        'nativeExecutionVersion',
        'packageName',
        'packageVersion',
        'prp',
        'schema',
      ].sort(),
    );
    expect(repoSchemaValidator('runner/runnerd-build-metadata-v1.schema.json')(metadata)).toEqual([]);
    expect(metadata.binaryContractVersion).toBe(PAPERCLIP_RUNNER_BUILD_METADATA.contracts.runnerdArtifact);
    expect(metadata.prp).toEqual(PAPERCLIP_RUNNER_BUILD_METADATA.prp);
  });
});

describe('PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256', () => {
  it("equals the digest Evals' own RFC 8785 canonicaliser computes, over canonicalCapabilitySemanticCatalog()", () => {
    expect(PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256).toBe(canonicalDigest(CAPABILITY_SEMANTIC_TOOL_CATALOG));
    expect(canonicalCapabilitySemanticCatalog()).toBe(canonicalize(CAPABILITY_SEMANTIC_TOOL_CATALOG));
    expect(PAPERCLIP_RUNNER_BUILD_METADATA.semanticCatalog).toEqual({
      version: 1,
      sha256: PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
    });
  });

  it('covers every operation the deterministic driver calls', () => {
    expect(CAPABILITY_SEMANTIC_TOOL_CATALOG.operations.map((operation) => operation.operationId)).toEqual([
      'decide_approval',
      'read_document',
      'write_document',
    ]);
  });
});

describe('parsePaperclipNativeExecution', () => {
  const seeded = (): Bundle => JSON.parse(readFileSync(paperclipNativeExecutionFixtureUrl, 'utf8')) as Bundle;

  it("ships the native-execution schema at upstream's path and accepts the seeded fixture, keeping unknown fields", () => {
    expect(paperclipNativeExecutionSchemaUrl.pathname).toMatch(
      /\/protocol\/schemas\/native-execution\.schema\.json$/,
    );
    expect(paperclipNativeExecutionFixtureUrl.pathname).toMatch(
      /\/protocol\/fixtures\/evals\/native-execution-seeded\.json$/,
    );
    expect((JSON.parse(readFileSync(paperclipNativeExecutionSchemaUrl, 'utf8')) as { $id: string }).$id).toBe(
      'https://paperclip.dev/schemas/runner/native-execution/v1.json',
    );
    const bundle = parsePaperclipNativeExecution(seeded());
    expect(bundle.x_fixturePurpose).toEqual(expect.any(String));
    expect(bundle.semanticTools.denials).toHaveLength(1);
  });

  it('loads the seeded fixture (async, parsed): a no-spend attempt with no provider cost receipt', async () => {
    const bundle = await loadPaperclipNativeExecutionFixture();
    expect(bundle.usage).toMatchObject({
      cost: null,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
    });
  });

  const mutations: [string, string, string, (bundle: Bundle) => void][] = [
    [
      'an unknown schema',
      'schema_const',
      '/schema',
      (b) => Object.assign(b, { schema: 'paperclip-runner/native-execution/v2' }),
    ],
    ['a malformed digest', 'schema_pattern', '/input/caseSha256', (b) => (b.input.caseSha256 = 'sha256:ABC')],
    [
      'an event from another run',
      'event_run_mismatch',
      '/events/0/runId',
      (b) => (b.events[0]!.runId = 'run_other'),
    ],
    [
      'no terminal event',
      'terminal_event_missing',
      '/events',
      (b) => (b.events = b.events.filter((e) => e.eventType !== 'run.terminal')),
    ],
    [
      'a terminal that differs from its event',
      'terminal_mismatch',
      '/terminal',
      (b) => (b.terminal.runTerminalState = 'failed'),
    ],
    [
      'a call index pointing nowhere',
      'semantic_index_invalid',
      '/semanticTools/calls/0/eventId',
      (b) => (b.semanticTools.calls[0]!.eventId = 'nowhere'),
    ],
    [
      'a result that reinterprets its outcome',
      'semantic_index_mismatch',
      '/semanticTools/results/1/outcome',
      (b) => (b.semanticTools.results[1]!.outcome = 'succeeded'),
    ],
    [
      'a denied result without its denial',
      'denial_missing',
      '/events/7/payload/semantic_tool',
      (b) => (b.semanticTools.denials = []),
    ],
    [
      'a denial that disagrees on retryable',
      'denial_mismatch',
      '/semanticTools/denials/0/retryable',
      (b) => (b.semanticTools.denials[0]!.retryable = true),
    ],
    [
      'totals that do not add up',
      'usage_total_mismatch',
      '/usage/totalTokens',
      (b) => (b.usage.totalTokens += 1),
    ],
    [
      'a complete transcript missing events',
      'transcript_count_mismatch',
      '/transcript/eventCount',
      (b) => (b.transcript.eventCount -= 1),
    ],
    [
      'an incomplete transcript without a reason',
      'transcript_ambiguous',
      '/transcript/omissionReason',
      (b) => (b.transcript.complete = false),
    ],
  ];

  it.each(mutations)('refuses %s (%s at %s), as Evals does', (_name, code, path, mutate) => {
    const bundle = seeded();
    mutate(bundle);
    const error = thrown(() => parsePaperclipNativeExecution(bundle));
    expect(error).toBeInstanceOf(PaperclipNativeExecutionError);
    expect(error.code).toBe('paperclip_native_execution_invalid');
    expect(error.issues).toContainEqual(expect.objectContaining({ code, path }));
    expect((error as unknown as { path: string }).path).toBe(error.issues[0]?.path);
    expect(() => evalsParseNativeExecution(JSON.stringify(bundle))).toThrowCode(
      'paperclip_native_execution_invalid',
    );
  });

  it('reports every issue at once', () => {
    const bundle = seeded();
    bundle.usage.totalTokens += 1;
    bundle.events[0]!.runId = 'run_other';
    expect(
      thrown(() => parsePaperclipNativeExecution(bundle))
        .issues.map((issue) => issue.code)
        .sort(),
    ).toEqual(['event_run_mismatch', 'usage_total_mismatch']);
  });
});

describe('assertPaperclipRunnerEvalCompatibility', () => {
  const requirement = (): PaperclipRunnerEvalCompatibilityRequirement => ({
    consumer: 'paperclip-evals',
    packageVersion: PAPERCLIP_RUNNER_BUILD_METADATA.package.version,
    runnerd: runnerdBuildMetadata(),
    nativeExecutionVersion: 1,
    prp: { minimumVersion: 1, maximumVersion: 3 },
    catalog: { version: 1, sha256: PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 },
    driver: {
      contractVersion: 1,
      descriptor: DETERMINISTIC_DRIVER_DESCRIPTOR,
      requiredCapabilities: ['interruption', 'resume', 'structuredResult', 'typedEvents'],
    },
  });

  it('returns a receipt naming the negotiated PRP version, catalog and driver', () => {
    expect(assertPaperclipRunnerEvalCompatibility(requirement())).toEqual({
      schema: 'paperclip-runner/evals-integration/v1',
      consumer: 'paperclip-evals',
      packageVersion: '0.4.0',
      runnerdPackageVersion: '0.4.0',
      negotiatedPrpVersion: 1,
      catalogSha256: PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256,
      driverKind: 'paperclip-deterministic',
      driverVersion: '1.0.0',
    });
  });

  it('lists every issue, with component, expected and received', () => {
    const broken = requirement();
    const runnerd: PaperclipRunnerdBuildMetadata = {
      ...broken.runnerd,
      binaryContractVersion: 999,
      packageVersion: '0.3.9',
    };
    const error = thrown(() =>
      assertPaperclipRunnerEvalCompatibility({
        ...broken,
        packageVersion: '0.4.1',
        runnerd,
        nativeExecutionVersion: 2,
        prp: { name: 'other.protocol', minimumVersion: 2, maximumVersion: 2 },
        catalog: { version: 2, sha256: `sha256:${'0'.repeat(64)}` },
        driver: {
          contractVersion: 2,
          descriptor: { ...DETERMINISTIC_DRIVER_DESCRIPTOR, protocolVersion: 'prp.v2' },
          requiredCapabilities: ['steering'],
        },
      }),
    );
    expect(error).toBeInstanceOf(PaperclipRunnerEvalCompatibilityError);
    expect((error as unknown as { consumer: string }).consumer).toBe('paperclip-evals');
    expect(error.code).toBe('paperclip_runner_eval_incompatible');
    expect(error.issues.map((issue) => issue.code)).toEqual([
      'package_version_mismatch',
      'binary_package_version_mismatch',
      'binary_contract_version_mismatch',
      'native_execution_version_mismatch',
      'prp_name_mismatch',
      'prp_version_no_overlap',
      'catalog_version_mismatch',
      'catalog_digest_mismatch',
      'driver_contract_version_mismatch',
      // No driver_protocol_version_mismatch: with no PRP version negotiated there is none to hold the
      // driver to (upstream's own test of this join lists none either).
      'driver_capability_unsupported',
    ]);
    expect(error.issues[2]).toMatchObject({ component: 'binary', expected: '1', received: '999' });
  });

  it('picks the PRP version with the consumer first, then requires runnerd to speak it', () => {
    const codes = (
      change: Partial<PaperclipRunnerEvalCompatibilityRequirement>,
      runnerdPrp?: [number, number],
    ) => {
      const base = requirement();
      const runnerd =
        runnerdPrp === undefined
          ? base.runnerd
          : {
              ...base.runnerd,
              prp: { ...base.runnerd.prp, minimumVersion: runnerdPrp[0], maximumVersion: runnerdPrp[1] },
            };
      try {
        return assertPaperclipRunnerEvalCompatibility({ ...base, ...change, runnerd }).negotiatedPrpVersion;
      } catch (error) {
        return (error as PaperclipRunnerEvalCompatibilityError).issues.map((issue) => issue.code);
      }
    };
    // This package speaks PRP 1..1: the consumer's range must hold 1, and runnerd must speak 1.
    expect(codes({ prp: { minimumVersion: 1, maximumVersion: 2 } })).toBe(1);
    expect(codes({ prp: { minimumVersion: 1, maximumVersion: 2 } }, [2, 3])).toEqual([
      'prp_version_no_overlap',
    ]);
    expect(codes({ prp: { minimumVersion: 2, maximumVersion: 3 } }, [1, 3])).toEqual([
      'prp_version_no_overlap',
    ]);
    // Negotiated: the driver is held to prp.v1; not negotiated: to nothing.
    const speaksTwo = {
      ...requirement().driver,
      descriptor: { ...DETERMINISTIC_DRIVER_DESCRIPTOR, protocolVersion: 'prp.v2' },
    };
    expect(codes({ driver: speaksTwo })).toEqual(['driver_protocol_version_mismatch']);
    expect(codes({ driver: speaksTwo }, [2, 2])).toEqual(['prp_version_no_overlap']);
  });
});

describe('resolvePaperclipRunnerdArtifact', () => {
  const dir = scratchDir('paperclip-runner-resolve-');
  const metadata = JSON.stringify(runnerdBuildMetadata());
  const good = shellExecutable(dir, 'paperclip-runnerd', metadata);
  const resolveError = async (
    options: Parameters<typeof resolvePaperclipRunnerdArtifact>[0],
  ): Promise<string> =>
    resolvePaperclipRunnerdArtifact(options).then(
      () => 'resolved',
      (error: unknown) => `${(error as PaperclipRunnerError).code}/${(error as { issue: string }).issue}`,
    );

  it('resolves an explicit path with its digest and reads its metadata', async () => {
    const artifact = await resolvePaperclipRunnerdArtifact({
      executablePath: good,
      expectedSha256: fileSha256(good),
    });
    expect(artifact).toMatchObject({
      executablePath: good,
      sha256: fileSha256(good),
      buildMetadata: JSON.parse(metadata) as object,
    });
  });

  it('refuses a missing file, a directory and a file without an execute bit as path_invalid', async () => {
    const plain = join(dir, 'plain');
    writeFileSync(plain, metadata);
    mkdirSync(join(dir, 'folder'), { recursive: true });
    for (const executablePath of [join(dir, 'missing'), join(dir, 'folder'), plain]) {
      expect(await resolveError({ executablePath, expectedSha256: fileSha256(good) })).toBe(
        'paperclip_runnerd_artifact_invalid/path_invalid',
      );
    }
  });

  it('refuses a malformed digest before touching the file, and a different digest', async () => {
    expect(await resolveError({ executablePath: good, expectedSha256: 'sha256:ABC' })).toBe(
      'paperclip_runnerd_artifact_invalid/digest_invalid',
    );
    expect(await resolveError({ executablePath: good, expectedSha256: `sha256:${'0'.repeat(64)}` })).toBe(
      'paperclip_runnerd_artifact_invalid/digest_mismatch',
    );
  });

  it('reports a failing executable as metadata_unavailable and bad output as metadata_invalid', async () => {
    const failing = shellExecutable(dir, 'failing', metadata, 3);
    const garbled = shellExecutable(dir, 'garbled', '{"schema":');
    expect(await resolveError({ executablePath: failing, expectedSha256: fileSha256(failing) })).toBe(
      'paperclip_runnerd_artifact_invalid/metadata_unavailable',
    );
    expect(await resolveError({ executablePath: garbled, expectedSha256: fileSha256(garbled) })).toBe(
      'paperclip_runnerd_artifact_invalid/metadata_invalid',
    );
  });

  it("keeps upstream's eight fields of what a newer build prints, dropping the rest", async () => {
    const newer = {
      ...runnerdBuildMetadata(),
      prpTransportModes: ['dial_wss'],
      durableSessionCapabilities: [],
    };
    const printing = shellExecutable(dir, 'newer', JSON.stringify(newer));
    const artifact = await resolvePaperclipRunnerdArtifact({
      executablePath: printing,
      expectedSha256: fileSha256(printing),
    });
    expect(artifact.buildMetadata).toEqual(runnerdBuildMetadata());
    expect(parsePaperclipRunnerdBuildMetadata(newer)).toEqual(runnerdBuildMetadata());
  });

  it("refuses what upstream's text() and version() refuse as metadata_invalid: blank text, an unsafe version", () => {
    const issueOf = (value: unknown): string => {
      try {
        parsePaperclipRunnerdBuildMetadata(value);
        return 'parsed';
      } catch (error) {
        return `${(error as PaperclipRunnerError).code}/${(error as { issue: string }).issue}`;
      }
    };
    const good = runnerdBuildMetadata();
    const refused = [
      { ...good, packageVersion: ' ' },
      { ...good, packageVersion: '\t\u3000\ufeff' },
      { ...good, prp: { ...good.prp, name: '\n' } },
      { ...good, harnessDriverVersion: 2 ** 53 },
      { ...good, prp: { ...good.prp, maximumVersion: Number.POSITIVE_INFINITY } },
    ];
    for (const value of refused)
      expect(issueOf(value)).toBe('paperclip_runnerd_artifact_invalid/metadata_invalid');
    expect(issueOf({ ...good, packageVersion: ` ${good.packageVersion} ` })).toBe('parsed');
  });
});
