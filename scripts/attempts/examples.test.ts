// The example attempts on disk are exactly what the generator writes: no hand edits, no strays.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { EXAMPLES_DIR, exampleAttemptFiles } from './example-attempts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('fixtures/attempts', () => {
  const expected = exampleAttemptFiles();

  it('holds no file the generator does not write', () => {
    const onDisk = readdirSync(join(ROOT, EXAMPLES_DIR), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.json'))
      .map((name) => `${EXAMPLES_DIR}/${name}`)
      .sort();
    expect(onDisk).toEqual([...expected.keys()].sort());
  });

  it.each([...expected.keys()])(
    '%s matches the generator byte for byte (run `pnpm run fixtures`)',
    (relative) => {
      expect(readFileSync(join(ROOT, relative)).equals(Buffer.from(expected.get(relative) ?? ''))).toBe(true);
    },
  );
});
