// The negotiate example's documents (examples/negotiate/) are what scripts/negotiate-example.ts
// writes from the reference runner and Evals' requirements today: regenerated here and compared as
// JSON with the committed files (prettier may lay them out), so a change to the package's build
// metadata, catalog or driver, or to Evals' requirements, fails until `pnpm run examples` is run.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { NEGOTIATE_EXAMPLE_DIR, negotiateExampleDocuments } from './negotiate-example.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('examples/negotiate/', () => {
  it('holds exactly the documents the generator writes, as it writes them', async () => {
    const documents = await negotiateExampleDocuments();
    expect(readdirSync(join(ROOT, NEGOTIATE_EXAMPLE_DIR)).sort()).toEqual(Object.keys(documents).sort());
    for (const [name, text] of Object.entries(documents))
      expect(JSON.parse(readFileSync(join(ROOT, NEGOTIATE_EXAMPLE_DIR, name), 'utf8')), name).toEqual(
        JSON.parse(text),
      );
  });

  it('is completed requirements, not the template (no placeholder left)', async () => {
    const requirements = (await negotiateExampleDocuments())['requirements.json'] ?? '';
    expect(requirements).not.toContain('filled-at-qualification');
    expect(JSON.parse(requirements)).toMatchObject({ packageVersion: '0.4.0' });
  });
});
