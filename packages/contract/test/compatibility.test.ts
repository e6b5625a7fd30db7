// The negotiation table: each of the six dimensions broken alone gives exactly its issues; all of
// them broken at once give every issue in one error.
import { describe, expect, it } from 'vitest';

import {
  negotiateCompatibility,
  parseConsumerRequirements,
  parsePackageBuildMetadata,
} from '../src/compatibility.ts';
import { ContractError } from '../src/errors.ts';

import type { CompatibilityRequest } from '../src/compatibility.ts';

const CATALOG_SHA256 = `sha256:${'c'.repeat(64)}`;

function compatibleRequest(): CompatibilityRequest {
  return structuredClone({
    package: {
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.4.2' },
      contracts: { nativeExecution: 1, runnerdArtifact: 2, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 3 },
      semanticCatalog: { version: 1, sha256: CATALOG_SHA256 },
    },
    runnerd: {
      schema: 'paperclip-runner/runnerd-build-metadata/v1',
      binaryName: 'paperclip-runnerd',
      packageName: '@paperclipai/paperclip-runner',
      packageVersion: '0.4.2',
      binaryContractVersion: 2,
      nativeExecutionVersion: 1,
      harnessDriverVersion: 1,
      prp: { name: 'paperclip.runner', minimumVersion: 2, maximumVersion: 4 },
    },
    consumer: {
      schema: 'paperclip-evals/consumer-requirements/v1',
      consumer: 'paperclip-evals',
      packageVersion: '0.4.2',
      nativeExecution: 'paperclip-runner/native-execution/v1',
      prp: { minimumVersion: 1, maximumVersion: 2 },
      driver: {
        contractVersion: 1,
        requiredCapabilities: ['interrupt', 'resume'],
        descriptor: {
          kind: 'paperclip-deterministic',
          version: '1.0.0',
          protocolVersion: 'prp.v2',
          capabilities: { interrupt: true, resume: true, steer: false },
        },
      },
    },
    catalog: { version: 1, sha256: CATALOG_SHA256 },
  }) as CompatibilityRequest;
}

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access --
   each row breaks one arbitrary place of the request. */
type Mutable = Record<string, any>;
type Breakage = (request: Mutable) => void;

/** One row per dimension: how to break it alone, and the issue codes that must result. */
const DIMENSIONS: Record<string, { break: Breakage; codes: string[] }> = {
  package: {
    break: (r) => (r.consumer.packageVersion = '0.4.1'),
    codes: ['package_version_mismatch'],
  },
  binary: {
    break: (r) => {
      r.runnerd.packageVersion = '0.4.1';
      r.runnerd.binaryContractVersion = 1;
    },
    codes: ['binary_package_version_mismatch', 'binary_contract_version_mismatch'],
  },
  prp: {
    break: (r) => {
      r.runnerd.prp.name = 'other.protocol';
      r.runnerd.prp.minimumVersion = 3; // consumer stops at 2: no overlap
    },
    codes: ['prp_name_mismatch', 'prp_version_no_overlap'],
  },
  catalog: {
    break: (r) => {
      r.catalog.version = 2;
      r.catalog.sha256 = `sha256:${'d'.repeat(64)}`;
    },
    codes: ['catalog_version_mismatch', 'catalog_digest_mismatch'],
  },
  driver: {
    break: (r) => {
      r.consumer.driver.contractVersion = 2;
      r.consumer.driver.descriptor.protocolVersion = 'prp.v1';
      r.consumer.driver.descriptor.capabilities.resume = 'yes'; // truthy is not true
      r.consumer.driver.requiredCapabilities = ['interrupt', 'resume', 'snapshot']; // absent is not true
    },
    codes: [
      'driver_contract_version_mismatch',
      'driver_protocol_version_mismatch',
      'driver_capability_unsupported',
      'driver_capability_unsupported',
    ],
  },
  nativeExecution: {
    break: (r) => (r.consumer.nativeExecution = 'paperclip-runner/native-execution/v2'),
    codes: ['native_execution_version_mismatch'],
  },
};

function issuesOf(request: CompatibilityRequest): ContractError['issues'] {
  try {
    negotiateCompatibility(request);
  } catch (error) {
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).code).toBe('paperclip_runner_eval_incompatible');
    return (error as ContractError).issues;
  }
  throw new Error('negotiation succeeded');
}

describe('negotiateCompatibility', () => {
  it('returns a receipt with the highest common PRP version', () => {
    expect(negotiateCompatibility(compatibleRequest())).toEqual({
      schema: 'paperclip-runner/evals-integration/v1',
      consumer: 'paperclip-evals',
      packageVersion: '0.4.2',
      runnerdPackageVersion: '0.4.2',
      negotiatedPrpVersion: 2,
      nativeExecution: 'paperclip-runner/native-execution/v1',
      catalogSha256: CATALOG_SHA256,
      driverKind: 'paperclip-deterministic',
      driverVersion: '1.0.0',
    });
  });

  it.each(Object.entries(DIMENSIONS))(
    'reports exactly the %s issues when only that dimension is broken',
    (name, row) => {
      const request = compatibleRequest();
      row.break(request);
      const issues = issuesOf(request);
      expect(issues.map((issue) => issue.code).sort()).toEqual([...row.codes].sort());
      for (const issue of issues) {
        expect(issue.component).toBe(name);
        expect(typeof issue.expected).toBe('string');
        expect(typeof issue.received).toBe('string');
        expect(issue.message).not.toBe('');
      }
    },
  );

  it('reports every issue of every dimension in a single error when all are broken at once', () => {
    const request = compatibleRequest();
    for (const row of Object.values(DIMENSIONS)) row.break(request);
    const issues = issuesOf(request);
    // With the PRP broken no version is negotiated, so (as upstream) the driver's protocolVersion is
    // held to none: every other code of every row, driver_protocol_version_mismatch aside.
    expect(issues.map((issue) => issue.code).sort()).toEqual(
      Object.values(DIMENSIONS)
        .flatMap((row) => row.codes)
        .filter((code) => code !== 'driver_protocol_version_mismatch')
        .sort(),
    );
    expect(new Set(issues.map((issue) => issue.component))).toEqual(new Set(Object.keys(DIMENSIONS)));
  });

  it('says what was expected and received for a missing capability', () => {
    const request = compatibleRequest();
    (request.consumer.driver.requiredCapabilities as string[]).push('snapshot');
    expect(issuesOf(request)).toEqual([
      expect.objectContaining({
        code: 'driver_capability_unsupported',
        expected: 'snapshot=true',
        received: 'snapshot=(absent)',
      }),
    ]);
  });

  it('is pure: the same request always gives the same receipt', () => {
    expect(negotiateCompatibility(compatibleRequest())).toEqual(negotiateCompatibility(compatibleRequest()));
  });
});

/** A PRP range as the documents give it. */
type Range = { minimumVersion: number; maximumVersion: number };
const range = (minimumVersion: number, maximumVersion: number): Range => ({ minimumVersion, maximumVersion });

/** The request with these three PRP ranges and a driver speaking `prp.v<driverSpeaks>`. */
function prpRequest(
  release: Range,
  consumer: Range,
  runnerd: Range,
  driverSpeaks: number,
): CompatibilityRequest {
  const request = compatibleRequest() as unknown as Mutable;
  Object.assign(request.package.prp, release);
  Object.assign(request.consumer.prp, consumer);
  Object.assign(request.runnerd.prp, runnerd);
  request.consumer.driver.descriptor.protocolVersion = `prp.v${driverSpeaks}`;
  return request as unknown as CompatibilityRequest;
}

/** The negotiated PRP version, or the sorted issue codes. */
function outcome(request: CompatibilityRequest): number | string[] {
  try {
    return negotiateCompatibility(request).negotiatedPrpVersion;
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    return error.issues.map((issue) => issue.code).sort();
  }
}

/**
 * Upstream's selection, written out as a search rather than as its formula: the highest version
 * both the package and the consumer speak, then runnerd must speak that one.
 */
function upstreamPrpVersion(release: Range, consumer: Range, runnerd: Range): number | null {
  let picked: number | null = null;
  for (let version = 1; version <= 8; version += 1) {
    const speaks = (r: Range): boolean => r.minimumVersion <= version && version <= r.maximumVersion;
    if (speaks(release) && speaks(consumer)) picked = version;
  }
  if (picked === null) return null;
  return runnerd.minimumVersion <= picked && picked <= runnerd.maximumVersion ? picked : null;
}

describe('the PRP version, as upstream selects it (package ∩ consumer first, then runnerd)', () => {
  // [package, consumer, runnerd, driver speaks, outcome]
  const TABLE: [Range, Range, Range, number, number | string[]][] = [
    // The audit's probe: all three share PRP 1, yet the package and the consumer pick 2.
    [range(1, 2), range(1, 2), range(1, 1), 1, ['prp_version_no_overlap']],
    [range(1, 2), range(1, 2), range(1, 1), 2, ['prp_version_no_overlap']],
    [range(1, 2), range(1, 1), range(1, 1), 1, 1],
    [range(1, 3), range(1, 2), range(2, 4), 2, 2],
    [range(1, 3), range(2, 3), range(1, 2), 2, ['prp_version_no_overlap']],
    [range(2, 3), range(1, 1), range(1, 3), 1, ['prp_version_no_overlap']],
    [range(1, 1), range(1, 1), range(2, 2), 1, ['prp_version_no_overlap']],
    // Negotiated: the driver is held to that version.
    [range(1, 3), range(1, 2), range(2, 4), 1, ['driver_protocol_version_mismatch']],
    [range(1, 2), range(1, 1), range(1, 1), 2, ['driver_protocol_version_mismatch']],
  ];

  const text = (r: Range): string => `${r.minimumVersion}..${r.maximumVersion}`;
  it.each(
    TABLE.map(
      (row) =>
        [
          `package ${text(row[0])}, consumer ${text(row[1])}, runnerd ${text(row[2])}, driver prp.v${row[3]} → ${JSON.stringify(row[4])}`,
          row,
        ] as const,
    ),
  )('%s', (_, [release, consumer, runnerd, speaks, expected]) => {
    expect(outcome(prpRequest(release, consumer, runnerd, speaks))).toEqual(expected);
  });

  it('agrees with upstream on every triple of ranges within 1..4, for a driver of every version', () => {
    const ranges: Range[] = [];
    for (let low = 1; low <= 4; low += 1)
      for (let high = low; high <= 4; high += 1) ranges.push(range(low, high));
    let compared = 0;
    for (const release of ranges)
      for (const consumer of ranges)
        for (const runnerd of ranges)
          for (let speaks = 1; speaks <= 4; speaks += 1) {
            const version = upstreamPrpVersion(release, consumer, runnerd);
            const expected =
              version === null
                ? ['prp_version_no_overlap']
                : speaks === version
                  ? version
                  : ['driver_protocol_version_mismatch'];
            expect(outcome(prpRequest(release, consumer, runnerd, speaks))).toEqual(expected);
            compared += 1;
          }
    expect(compared).toBe(10 * 10 * 10 * 4);
  });

  it('says which step failed and what to do', () => {
    const runnerdLacks = issuesOf(prpRequest(range(1, 2), range(1, 2), range(1, 1), 1));
    expect(runnerdLacks).toEqual([
      expect.objectContaining({
        code: 'prp_version_no_overlap',
        component: 'prp',
        expected: '1..2',
        received: 'consumer 1..2; runnerd 1..1',
      }),
    ]);
    expect(runnerdLacks[0]?.message).toContain('pick PRP 2');
    expect(runnerdLacks[0]?.message).toContain('use a runnerd that speaks PRP 2');
    const noPick = issuesOf(prpRequest(range(1, 1), range(2, 2), range(1, 2), 1));
    expect(noPick[0]?.message).toContain('share no PRP version');
  });
});

describe('contract documents', () => {
  it('accepts the package build metadata and consumer requirements used above', () => {
    expect(() => parsePackageBuildMetadata(compatibleRequest().package)).not.toThrow();
    expect(() => parseConsumerRequirements(compatibleRequest().consumer)).not.toThrow();
  });

  it('refuses an invalid document with every issue and its pointer', () => {
    const consumer = structuredClone(compatibleRequest().consumer) as unknown as Mutable;
    delete consumer.packageVersion;
    consumer.prp = { minimumVersion: 0, maximumVersion: 1 };
    try {
      parseConsumerRequirements(consumer);
      throw new Error('accepted');
    } catch (error) {
      expect((error as ContractError).code).toBe('paperclip_contract_document_invalid');
      expect((error as ContractError).issues.map((issue) => issue.path).sort()).toEqual([
        '/packageVersion',
        '/prp/minimumVersion',
      ]);
    }
  });

  it('refuses package metadata that names two semantic catalog versions', () => {
    const metadata = structuredClone(compatibleRequest().package) as unknown as Mutable;
    metadata.contracts.semanticCatalog = 2;
    expect(() => parsePackageBuildMetadata(metadata)).toThrow(/invalid package build metadata/);
  });

  it('refuses an inverted PRP range', () => {
    const metadata = structuredClone(compatibleRequest().package) as unknown as Mutable;
    metadata.prp = { name: 'paperclip.runner', minimumVersion: 3, maximumVersion: 1 };
    expect(() => parsePackageBuildMetadata(metadata)).toThrow(/invalid package build metadata/);
  });
});
