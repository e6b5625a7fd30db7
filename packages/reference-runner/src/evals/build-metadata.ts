// The package's build metadata for Evals: its exact version (read from its own package.json), the
// contract versions it implements, the PRP range it speaks, its semantic catalog and runnerd facts.
import { packageBuildMetadata } from '../build-info.js';

import type { PackageBuildMetadata } from '../build-info.js';

export const PAPERCLIP_RUNNER_BUILD_METADATA: PackageBuildMetadata = Object.freeze(packageBuildMetadata());
