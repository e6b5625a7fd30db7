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
    expect(issues.map((issue) => issue.code).sort()).toEqual(
      Object.values(DIMENSIONS)
        .flatMap((row) => row.codes)
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
