// Tests for sha256 digests: known vectors, canonical-JSON digests, stream digests, comparison and shape.
import { Readable } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  SHA256_DIGEST_PATTERN,
  canonicalDigest,
  digestStream,
  digestsEqual,
  isSha256Digest,
  sha256Digest,
  sha256DigestOfParts,
} from '../src/digest.js';
import { ContractError } from '../src/errors.js';

const EMPTY = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ABC = 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('sha256Digest', () => {
  it.each([
    ['', EMPTY],
    ['abc', ABC],
  ])('digests %j to the FIPS 180-2 vector', (text, expected) => {
    expect(sha256Digest(text)).toBe(expected);
    expect(sha256Digest(new TextEncoder().encode(text))).toBe(expected);
  });

  it('hashes a string as UTF-8', () => {
    expect(sha256Digest('€')).toBe(sha256Digest(new Uint8Array([0xe2, 0x82, 0xac])));
  });
});

describe('sha256DigestOfParts', () => {
  it('is the digest of the parts joined, strings as UTF-8 (property)', () => {
    const part = fc.oneof(fc.string({ unit: 'grapheme' }), fc.uint8Array());
    fc.assert(
      fc.property(fc.array(part), (parts) => {
        const joined = Buffer.concat(parts.map((one) => (typeof one === 'string' ? Buffer.from(one) : one)));
        expect(sha256DigestOfParts(parts)).toBe(sha256Digest(joined));
      }),
    );
    expect(sha256DigestOfParts([])).toBe(EMPTY);
    expect(sha256DigestOfParts(['a', new Uint8Array([0x62]), 'c'])).toBe(ABC);
  });
});

describe('canonicalDigest', () => {
  it('is the digest of the canonical text', () => {
    expect(canonicalDigest({ b: [1, 2], a: '€' })).toBe(sha256Digest('{"a":"€","b":[1,2]}'));
  });

  it('does not depend on member order', () => {
    expect(canonicalDigest({ a: 1, b: { c: true, d: null } })).toBe(
      canonicalDigest({ b: { d: null, c: true }, a: 1 }),
    );
  });

  it('refuses what canonicalize refuses', () => {
    expect(() => canonicalDigest({ a: Number.NaN })).toThrow(ContractError);
  });
});

describe('digestStream', () => {
  it('digests the concatenation of a stream’s chunks', async () => {
    const chunks = ['a', 'b', 'c'].map((text) => new TextEncoder().encode(text));

    await expect(digestStream(Readable.from(chunks))).resolves.toEqual({ digest: ABC, byteSize: 3 });
  });
});

describe('digestsEqual', () => {
  it('is true for the same digest', () => {
    expect(digestsEqual(ABC, `sha256:${ABC.slice('sha256:'.length)}`)).toBe(true);
  });

  it('is false for different digests', () => {
    expect(digestsEqual(ABC, EMPTY)).toBe(false);
  });

  it.each([
    ['uppercase hex', ABC.toUpperCase().replace('SHA256', 'sha256')],
    ['a truncated digest', ABC.slice(0, -1)],
    ['a missing prefix', ABC.slice('sha256:'.length)],
    ['an empty string', ''],
  ])('is false, without throwing, for %s', (_name, malformed) => {
    expect(digestsEqual(ABC, malformed)).toBe(false);
    expect(digestsEqual(malformed, malformed)).toBe(false);
  });
});

describe('isSha256Digest', () => {
  it('accepts a well-formed digest', () => {
    expect(isSha256Digest(ABC)).toBe(true);
    expect(SHA256_DIGEST_PATTERN.test(EMPTY)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['uppercase hex', `sha256:${'A'.repeat(64)}`],
    ['63 hex digits', `sha256:${'a'.repeat(63)}`],
    ['65 hex digits', `sha256:${'a'.repeat(65)}`],
    ['a missing prefix', 'a'.repeat(64)],
    ['another algorithm', `sha512:${'a'.repeat(64)}`],
    ['a trailing newline', `${ABC}\n`],
    ['a number', 42],
    ['null', null],
    ['an object', { digest: ABC }],
  ])('rejects %s', (_name, value) => {
    expect(isSha256Digest(value)).toBe(false);
  });
});
