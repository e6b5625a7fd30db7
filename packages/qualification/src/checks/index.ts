// Qualification's table of checks, in the order QUALIFICATION_CHECK_IDS lists them, validated once
// at load (unique ids, known needs, no cycle) into the plan qualifyRelease runs.
import { appRecord } from './app-record.js';
import { buildMetadata } from './build-metadata.js';
import { consumerInstall } from './consumer-install.js';
import { consumerProbe } from './consumer-probe.js';
import { toDefinition } from './context.js';
import { driverConformance } from './driver-conformance.js';
import { entryPoints } from './entry-points.js';
import { nativeExecutionFixture } from './native-execution-fixture.js';
import { negotiation } from './negotiation.js';
import { negotiationFailsClosed } from './negotiation-fails-closed.js';
import { packageManifest } from './package-manifest.js';
import { releaseLayout } from './release-layout.js';
import { rootExports } from './root-exports.js';
import { defineChecks } from './runner.js';
import { runnerdEvalSession } from './runnerd-eval-session.js';
import { runnerdResolve } from './runnerd-resolve.js';
import { semanticCatalog } from './semantic-catalog.js';
import { sha256sums } from './sha256sums.js';
import { tarballExtract } from './tarball-extract.js';
import { undeclaredSubpathsCheck } from './undeclared-subpaths.js';

export const QUALIFICATION_CHECKS = [
  releaseLayout,
  sha256sums,
  tarballExtract,
  packageManifest,
  consumerInstall,
  consumerProbe,
  entryPoints,
  rootExports,
  undeclaredSubpathsCheck,
  buildMetadata,
  semanticCatalog,
  nativeExecutionFixture,
  driverConformance,
  runnerdResolve,
  appRecord,
  negotiation,
  negotiationFailsClosed,
  runnerdEvalSession,
] as const;

export const QUALIFICATION_PLAN = defineChecks(QUALIFICATION_CHECKS.map(toDefinition));
