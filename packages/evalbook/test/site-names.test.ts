// Page names from ids (issue 19): injective (two ids never share a page), one path segment that can
// never be `..` or hold a separator, a dot or NUL, and bounded in length — over any string.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { attemptPage, campaignFolder, casePage, nameOf } from '../src/report/site/site-names.ts';

const HOSTILE = [
  '..',
  '.',
  '',
  '/',
  '\\',
  '../../etc/passwd',
  'a/b',
  'A',
  'a',
  'x\u0000y',
  '~61~',
  '~h00',
  'ünï',
  '𝔘',
  'CON',
  'x'.repeat(300),
];
const anyId = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom(...HOSTILE));

const safe = (segment: string): void => {
  expect(segment).not.toMatch(/[/\\\0.]/);
  expect(segment.length).toBeGreaterThan(0);
  expect(segment.length).toBeLessThanOrEqual(200);
};

describe('site page names', () => {
  it('are one safe segment for any id, hostile ones included', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        safe(nameOf(id));
      }),
      { numRuns: 2000 },
    );
    for (const id of HOSTILE) safe(nameOf(id));
  });

  it('are injective: two different ids never share a name (case-folding file systems included)', () => {
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        fc.pre(a !== b);
        expect(nameOf(a)).not.toBe(nameOf(b));
        expect(nameOf(a).toLowerCase()).not.toBe(nameOf(b).toLowerCase());
      }),
      { numRuns: 5000 },
    );
    const names = HOSTILE.map(nameOf);
    expect(new Set(names).size).toBe(HOSTILE.length);
  });

  it('give every attempt of a campaign its own page, whatever its case, config and attempt ids', () => {
    const key = fc.record({ caseId: anyId, configId: anyId, attemptId: anyId });
    fc.assert(
      fc.property(key, key, (a, b) => {
        fc.pre(a.caseId !== b.caseId || a.configId !== b.configId || a.attemptId !== b.attemptId);
        expect(attemptPage(a)).not.toBe(attemptPage(b));
        const file = attemptPage(a)
          .replace(/^attempts\//, '')
          .replace(/\.html$/, '');
        expect(file).not.toMatch(/[/\\\0]|\.\./);
        expect(file.length).toBeLessThanOrEqual(200);
      }),
      { numRuns: 3000 },
    );
    expect(attemptPage({ caseId: 'a.b', configId: 'c', attemptId: 'd' })).not.toBe(
      attemptPage({ caseId: 'a', configId: 'b.c', attemptId: 'd' }),
    );
  });

  it('keep plain ids readable and put folders where the upstream layout has them', () => {
    expect(campaignFolder('nightly-42')).toBe('campaigns/nightly-42');
    expect(casePage('case_a')).toBe('tests/case_a.html');
    expect(attemptPage({ caseId: 'case_a', configId: 'cfg', attemptId: 'att_1' })).toBe(
      'attempts/case_a.cfg.att_1.html',
    );
    expect(nameOf('../x')).toBe('~2e~~2e~~2f~x');
  });
});
