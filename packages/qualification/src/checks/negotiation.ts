// Check negotiation: six-dimension negotiation with Evals' consumer requirements (packageVersion
// and the driver descriptor filled in) yields a receipt.
import { canonicalDigest, isContractError, negotiateCompatibility } from '@paperclip-evals/contract';

import { completeConsumerRequirements } from '../consumer-requirements.js';
import { fail, lacking } from './context.js';

import type { QualificationCheckDefinition } from './context.js';

export const negotiation: QualificationCheckDefinition = {
  id: 'negotiation',
  needs: ['build-metadata', 'semantic-catalog', 'driver-conformance', 'runnerd-resolve', 'package-manifest'],
  run: ({ baseRequirements }, values) => {
    const packageVersion = values.need('package-manifest').version;
    if (packageVersion === null) return lacking([{ need: 'package-manifest', why: 'a package version' }]);
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
