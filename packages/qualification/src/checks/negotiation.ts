// Check negotiation: six-dimension negotiation with Evals' consumer requirements (packageVersion
// and the driver descriptor filled in) yields a receipt. It is the join: no eval session runs
// unless it holds (runnerd-eval-session needs its receipt).
import { canonicalDigest, isContractError, negotiateCompatibility } from '@paperclip-evals/contract';

import { completeConsumerRequirements } from '../consumer-requirements.js';
import { fail } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const negotiation: QualificationCheckDefinition = {
  id: 'negotiation',
  needs: ['build-metadata', 'semantic-catalog', 'driver-conformance', 'runnerd-resolve', 'package-manifest'],
  run: ({ baseRequirements }, values) => {
    // The build metadata's version, as upstream's gate negotiates (its package.json says 0.0.0).
    const packageVersion = values.need('build-metadata').package.version;
    const consumer = completeConsumerRequirements(baseRequirements, {
      packageVersion,
      descriptor: values.need('driver-conformance').descriptor,
    });
    const request = {
      package: values.need('build-metadata'),
      runnerd: values.need('runnerd-resolve').artifact.buildMetadata,
      catalog: values.need('semantic-catalog'),
    };
    const value = { request, consumer, receipt: null };
    const facts = {
      consumerRequirements: consumer,
      digests: { consumerRequirements: canonicalDigest(consumer) },
    };
    try {
      const receipt = negotiateCompatibility({ ...request, consumer });
      return {
        status: 'pass',
        detail: `compatible: prp.v${receipt.negotiatedPrpVersion}, driver ${receipt.driverKind}@${receipt.driverVersion}, catalog ${receipt.catalogSha256}`,
        value: { ...value, receipt },
        facts: { ...facts, receipt },
      };
    } catch (error) {
      if (!isContractError(error)) throw error;
      return {
        ...fail(
          `incompatible with ${consumer.consumer}: ${error.issues.map((issue) => issue.code).join(', ')}`,
          error.issues,
          facts,
        ),
        value,
      };
    }
  },
};
