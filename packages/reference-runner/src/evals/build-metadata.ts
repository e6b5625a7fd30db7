// The package's build metadata for Evals (upstream's PAPERCLIP_RUNNER_BUILD_METADATA, deeply
// frozen): its exact version (ours: read from its own package.json), the contract versions it
// implements, the PRP range it speaks, its semantic catalog and runnerd facts; and the schema names
// of the documents it describes.
import { packageBuildMetadata } from '../build-info.js';

import type { PaperclipRunnerBuildMetadata } from '../build-info.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export const PAPERCLIP_RUNNER_BUILD_METADATA: PaperclipRunnerBuildMetadata =
  deepFreeze(packageBuildMetadata());
export {
  PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA,
  PAPERCLIP_RUNNER_BUILD_METADATA_SCHEMA,
  PAPERCLIP_RUNNER_NATIVE_EXECUTION_SCHEMA,
} from '../build-info.js';
export type { PaperclipRunnerBuildMetadata, PaperclipRunnerdBuildMetadata } from '../build-info.js';
export { PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 } from '../semantic-catalog.js';
