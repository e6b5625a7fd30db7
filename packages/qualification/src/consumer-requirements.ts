// Evals' own consumer requirements (packages/qualification/evals-consumer-requirements.json, a
// paperclip-evals/consumer-requirements/v1 document), and how a qualification completes them. Two
// members depend on the release and are filled in at qualification time: `packageVersion` (the
// version the package's build metadata states, as upstream's gate negotiates — upstream's
// package.json says 0.0.0 — a qualification pins exactly the release it qualifies)
// and `driver.descriptor` (from the package's conformance report, so the negotiator checks the real
// driver's PRP version and capabilities). The committed document carries schema-valid placeholders
// for both, and says so in `x_filledAtQualification`, which is dropped from the completed copy.
import { fileURLToPath } from 'node:url';
import { ContractError, parseConsumerRequirements, readJsonText } from '@paperclip-evals/contract';
import { readRegularFileSync } from '@paperclip-evals/node';

import type { ConsumerRequirements, HarnessDriverDescriptor } from '@paperclip-evals/contract';

/** The committed document (this file sits at packages/qualification/{src,dist}/). */
export const EVALS_CONSUMER_REQUIREMENTS_FILE = fileURLToPath(
  new URL('../evals-consumer-requirements.json', import.meta.url),
);

/** PRP range of the deliberately incompatible consumer: no runner release speaks it. */
export const INCOMPATIBLE_PRP_RANGE = { minimumVersion: 99, maximumVersion: 99 } as const;

/** Reads and validates the committed requirements; throws ContractError if they are broken. */
export function loadEvalsConsumerRequirements(
  file: string = EVALS_CONSUMER_REQUIREMENTS_FILE,
): ConsumerRequirements {
  const text = readJsonText(readRegularFileSync(file));
  if (!text.ok) {
    throw new ContractError('paperclip_contract_document_invalid', `${file} is not strict JSON`, text.issues);
  }
  return parseConsumerRequirements(text.value);
}

/** The requirements negotiated with: packageVersion and driver.descriptor taken from the release. */
export function completeConsumerRequirements(
  base: ConsumerRequirements,
  release: { readonly packageVersion: string; readonly descriptor: HarnessDriverDescriptor },
): ConsumerRequirements {
  const completed: Record<string, unknown> = {
    ...base,
    packageVersion: release.packageVersion,
    driver: { ...base.driver, descriptor: release.descriptor },
  };
  delete completed.x_filledAtQualification;
  return parseConsumerRequirements(completed);
}

/** The same requirements with a PRP range nothing overlaps, to prove negotiation fails closed. */
export function incompatibleConsumerRequirements(completed: ConsumerRequirements): ConsumerRequirements {
  return parseConsumerRequirements({ ...completed, prp: { ...completed.prp, ...INCOMPATIBLE_PRP_RANGE } });
}
