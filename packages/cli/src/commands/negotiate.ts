// `evals runnerd inspect` and `evals negotiate`: verify a runnerd executable by path and digest,
// then negotiate the six-dimension join with a package's build metadata and a consumer's
// requirements. Results (the artifact, the receipt, or every incompatibility) go to stdout.
import { resolve } from 'node:path';
import {
  additionalRunnerdFields,
  canonicalDigest,
  declaredBuildProfile,
  isContractError,
  negotiateCompatibility,
  parseConsumerRequirements,
  parsePackageBuildMetadata,
} from '@paperclip-evals/contract';
import { readJsonDocument, resolveRunnerdArtifact } from '@paperclip-evals/node';

import type { CompatibilityReceipt, Issue } from '@paperclip-evals/contract';
import type { RunnerdArtifact } from '@paperclip-evals/node';

import { cliIssues, show, usageError } from '../exit-codes.js';
import { printJson, printLines } from '../print.js';

import type { CliIssue, ContractFailureReport, Outcome } from '../exit-codes.js';

/** `evals runnerd inspect --json`: the verified artifact, or a coded failure. */
export type RunnerdInspectReport = RunnerdArtifact | ContractFailureReport;

/** `evals negotiate --json`: compatible with the receipt, incompatible with every issue, or a coded failure. */
export type NegotiateReport =
  | {
      readonly compatible: true;
      readonly receipt: CompatibilityReceipt;
      readonly runnerd: Pick<RunnerdArtifact, 'executablePath' | 'sha256'>;
    }
  | {
      readonly compatible: false;
      readonly code: 'paperclip_runner_eval_incompatible';
      readonly issues: readonly CliIssue[];
    }
  | ContractFailureReport;

/** Prints one of these outputs (typed, so a writer cannot drift from its type). */
function printReport(report: RunnerdInspectReport | NegotiateReport): void {
  printJson(report);
}

export interface InspectOptions {
  readonly path: string;
  readonly sha256: string;
  readonly timeoutMs: number;
  readonly json: boolean;
}

/**
 * Verifies the executable and prints it. With --json a coded contract failure is still a result a
 * machine can read: act() prints it on stdout as `{ok: false, code, message, issues}`
 * (contractFailureJson), with the error's exit code.
 */
export async function runRunnerdInspect(options: InspectOptions): Promise<Outcome> {
  // The path goes to the resolver as given: it resolves it against the working directory itself.
  const artifact = await resolveRunnerdArtifact({
    executablePath: options.path,
    expectedSha256: options.sha256,
    metadataTimeoutMs: options.timeoutMs,
  });
  if (options.json) printReport(artifact);
  else printLines('stdout', formatArtifact(artifact));
  const profile = declaredBuildProfile(artifact.buildMetadata);
  if (profile !== null && profile !== 'release')
    printLines('stderr', [
      `warning: ${artifact.executablePath} declares itself a ${JSON.stringify(profile)} build (buildProfile): its digest and metadata verify, but qualification refuses a runnerd whose own build profile is not the release build the gate record states`,
    ]);
  return 'ok';
}

export interface NegotiateOptions {
  readonly packageMetadata: string;
  readonly requirements: string;
  readonly catalog: string;
  readonly runnerd: string;
  readonly runnerdSha256: string;
  readonly timeoutMs: number;
  readonly json: boolean;
}

/** Negotiates and prints the receipt or every incompatibility (a coded failure: as runRunnerdInspect's). */
export async function runNegotiate(options: NegotiateOptions): Promise<Outcome> {
  const releaseMetadata = parsePackageBuildMetadata(
    await readJsonDocument(resolve(options.packageMetadata), 'package build metadata'),
  );
  const consumer = parseConsumerRequirements(
    await readJsonDocument(resolve(options.requirements), 'consumer requirements'),
  );
  const catalogDocument = await readJsonDocument(resolve(options.catalog), 'semantic catalog');
  const catalogVersion = (catalogDocument as { version?: unknown } | null)?.version;
  if (typeof catalogVersion !== 'number') {
    throw usageError(
      `the semantic catalog ${options.catalog} has no numeric "version" field: give the catalog the package ships (its version is a number); nothing was run`,
      {
        code: 'catalog_version_missing',
        component: '--catalog',
        expected: 'a JSON object with a numeric "version"',
        received:
          catalogVersion === undefined ? 'no "version"' : `"version" of type ${typeof catalogVersion}`,
      },
    );
  }
  const artifact = await resolveRunnerdArtifact({
    executablePath: options.runnerd,
    expectedSha256: options.runnerdSha256,
    metadataTimeoutMs: options.timeoutMs,
  });
  let receipt: CompatibilityReceipt;
  try {
    receipt = negotiateCompatibility({
      package: releaseMetadata,
      runnerd: artifact.buildMetadata,
      consumer,
      catalog: { version: catalogVersion, sha256: canonicalDigest(catalogDocument) },
    });
  } catch (error) {
    if (!isContractError(error) || error.code !== 'paperclip_runner_eval_incompatible') throw error;
    if (options.json) printReport({ compatible: false, code: error.code, issues: cliIssues(error.issues) });
    else printLines('stdout', formatIncompatible(error.issues));
    return 'incompatible';
  }
  if (options.json)
    printReport({
      compatible: true,
      receipt,
      runnerd: { executablePath: artifact.executablePath, sha256: artifact.sha256 },
    });
  else printLines('stdout', formatReceipt(receipt, artifact));
  return 'ok';
}

/** The verified artifact's lines (its build metadata is runnerd's output: printLines renders it). */
function formatArtifact(artifact: RunnerdArtifact): string[] {
  const metadata = artifact.buildMetadata;
  return [
    `verified  ${artifact.executablePath}`,
    `  sha256             ${artifact.sha256}  (${artifact.byteSize} bytes)`,
    `  package            ${metadata.packageName} ${metadata.packageVersion}`,
    `  binary contract    ${metadata.binaryContractVersion}`,
    `  native execution   ${metadata.nativeExecutionVersion}`,
    `  harness driver     ${metadata.harnessDriverVersion}`,
    `  PRP                ${metadata.prp.name} ${metadata.prp.minimumVersion}..${metadata.prp.maximumVersion}`,
    ...(metadata.prpTransportModes === undefined
      ? []
      : [`  PRP transports     ${metadata.prpTransportModes.join(', ')}`]),
    // Every field it printed beyond upstream's: additive, kept and shown, never dropped.
    ...additionalRunnerdFields(metadata).map(
      ([key, value]) => `  ${key.padEnd(18)} ${JSON.stringify(value)}`,
    ),
  ];
}

function formatReceipt(receipt: CompatibilityReceipt, artifact: RunnerdArtifact): string[] {
  return [
    `compatible  ${receipt.consumer} ↔ @paperclipai/paperclip-runner ${receipt.packageVersion}`,
    `  PRP                prp.v${receipt.negotiatedPrpVersion} (picked by package and consumer, spoken by runnerd)`,
    `  runnerd            ${receipt.runnerdPackageVersion}  ${artifact.sha256}`,
    `  native output      ${receipt.nativeExecution}`,
    `  semantic catalog   ${receipt.catalogSha256}`,
    `  harness driver     ${receipt.driverKind}@${receipt.driverVersion}`,
  ];
}

function formatIncompatible(issues: readonly Issue[]): string[] {
  return [
    `incompatible  ${issues.length} issue${issues.length === 1 ? '' : 's'}`,
    ...issues.flatMap((issue) => [
      `  ${(issue.component ?? '').padEnd(16)} ${issue.code}: ${issue.message}`,
      `  ${''.padEnd(16)}   expected ${show(issue.expected)}, received ${show(issue.received)}`,
    ]),
  ];
}
