// A test file whose requirement is never there, for requirement.test.ts (not part of the suite: only
// the vitest.config.ts beside it includes it).
import { describe, expect, it } from 'vitest';

import { needs } from '../../../src/requirement.ts';

const present = needs({
  testFile: import.meta.url,
  skips: 'the fixture comparisons',
  present: false,
  missing: 'fixture data not found at /nowhere',
});

describe.skipIf(!present)('the fixture comparisons', () => {
  it('would compare', () => {
    expect(present).toBe(true);
  });
});
