// Writes fixtures/attempts/ from scripts/attempts/example-attempts.ts (`pnpm run fixtures`).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { EXAMPLES_DIR, exampleAttemptFiles } from './example-attempts.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
rmSync(join(root, EXAMPLES_DIR), { recursive: true, force: true });
const files = exampleAttemptFiles();
for (const [relative, bytes] of files) {
  mkdirSync(dirname(join(root, relative)), { recursive: true });
  writeFileSync(join(root, relative), bytes);
}
process.stdout.write(`wrote ${files.size} files under ${EXAMPLES_DIR}/\n`);
