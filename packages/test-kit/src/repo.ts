// Where the repository is, for tests that read its files or spawn its built `evals` (this file sits
// at packages/test-kit/src/).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, with a trailing separator. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The built `evals` entry point (tests that spawn it run after the build). */
export const EVALS_BIN = join(REPO_ROOT, 'packages/cli/bin/evals.js');
