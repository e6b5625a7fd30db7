// maskSecretsIn masks every string of a JSON-shaped value (keys too) and keeps the value's shape:
// a document masked this way always serialises to JSON that parses, and no known secret is left in
// it, whatever characters the secret or the strings hold (masking the JSON text could break both).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { maskSecretsIn } from '../src/secrets.js';

const json = fc.jsonValue({ maxDepth: 3 });
const secret = fc.string({ minLength: 4, maxLength: 12 }).filter((value) => value.trim() !== '');

describe('maskSecretsIn', () => {
  it('serialises to JSON that parses, with no known secret in any string or key', () => {
    fc.assert(
      fc.property(json, secret, fc.array(fc.string(), { maxLength: 3 }), (value, known, extra) => {
        const withSecret = { value, quoted: `x ${known} y`, [`k${known}`]: extra };
        const masked = maskSecretsIn(withSecret, [known]);
        const text = JSON.stringify(masked);
        expect(() => JSON.parse(text) as unknown).not.toThrow();
        const strings: string[] = [];
        const walk = (node: unknown): void => {
          if (typeof node === 'string') strings.push(node);
          else if (Array.isArray(node)) node.forEach(walk);
          else if (node !== null && typeof node === 'object')
            for (const [key, item] of Object.entries(node)) {
              strings.push(key);
              walk(item);
            }
        };
        walk(masked);
        for (const text of strings) expect(text.includes(known)).toBe(false);
      }),
    );
  });

  it('the reviewer-found shape: a key "PWD=" stays valid JSON (masking the text broke it)', () => {
    const masked = maskSecretsIn({ issues: [{ code: ' ', message: '', file: { 'PWD=': '' } }] });
    expect(JSON.parse(JSON.stringify(masked))).toEqual(masked);
  });

  it('masks a secret with a quote or backslash in it, which the JSON text escapes', () => {
    expect(maskSecretsIn({ message: 'pw a"b\\c here' }, ['a"b\\c'])).toEqual({ message: 'pw *** here' });
  });

  it('keeps numbers, booleans and null as they are', () => {
    expect(maskSecretsIn({ n: 1, b: true, z: null, a: [2, 'password=hunter2'] })).toEqual({
      n: 1,
      b: true,
      z: null,
      a: [2, 'password=***'],
    });
  });
});
