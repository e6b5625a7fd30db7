// One reading of a timestamp as an instant: a bundle's or an artifact's timestamps may hold a leap
// second (23:59:60, which the contract accepts and Date.parse reads as NaN), so every duration or
// order taken from them goes through contract's instantMs. No package source calls Date.parse but
// instantMs itself, the retraction request's own `at` (a time a person types, refused when
// Date.parse cannot read it) and the reference runner (the App side, shaped like upstream's package).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ALLOWED = new Set([
  'packages/contract/src/native-execution-fields.ts',
  'packages/evalbook/src/ledger/retraction.ts',
]);

function sources(): string[] {
  const files: string[] = [];
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    if (pkg === 'reference-runner' || pkg === 'test-kit') continue;
    const src = join(ROOT, 'packages', pkg, 'src');
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true }))
      if (entry.isFile() && entry.name.endsWith('.ts'))
        files.push(join(entry.parentPath, entry.name).slice(ROOT.length));
  }
  return files;
}

describe('timestamps', () => {
  it('are read as instants only through instantMs', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const callers = files.filter(
      (file) => !ALLOWED.has(file) && /\bDate\.parse\(/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(callers).toEqual([]);
  });
});
