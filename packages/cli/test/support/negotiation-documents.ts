// Test support: the contract documents `evals negotiate` reads (a semantic catalog, consumer
// requirements and the package's build metadata), all compatible with the fake runnerd's metadata
// (PRP 1–2, package 0.4.2), written into a folder by writeNegotiationDocuments.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { canonicalDigest } from '../../../contract/src/digest.ts';

export const catalog = {
  schema: 'paperclip-runner/semantic-catalog/v1',
  version: 1,
  operations: [{ operationId: 'read_document' }],
};

export const requirements = {
  schema: 'paperclip-evals/consumer-requirements/v1',
  consumer: 'paperclip-evals',
  packageVersion: '0.4.2',
  nativeExecution: 'paperclip-runner/native-execution/v1',
  prp: { minimumVersion: 1, maximumVersion: 3 },
  driver: {
    contractVersion: 1,
    requiredCapabilities: ['interrupt'],
    descriptor: {
      kind: 'paperclip-deterministic',
      version: '1.0.0',
      protocolVersion: 'prp.v2',
      capabilities: { interrupt: true },
    },
  },
};

/** Writes catalog.json, package-metadata.json and requirements.json into `dir`. */
export function writeNegotiationDocuments(dir: string): void {
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  writeFileSync(
    join(dir, 'package-metadata.json'),
    JSON.stringify({
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.4.2' },
      contracts: { nativeExecution: 1, runnerdArtifact: 2, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 2 },
      semanticCatalog: { version: 1, sha256: canonicalDigest(catalog) },
    }),
  );
  writeFileSync(join(dir, 'requirements.json'), JSON.stringify(requirements));
}
