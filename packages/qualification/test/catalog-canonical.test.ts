// Property: the semantic-catalog check recomputes the catalog digest over RFC 8785 and requires
// canonicalCapabilitySemanticCatalog() to be exactly that text. Upstream's canonical text is
// sorted-key JSON (keys sorted by UTF-16 code units, every leaf as JSON.stringify writes it; see
// docs/app-surface.md); for every JSON value that text is the RFC 8785 form, so a real upstream
// catalog is never refused for the way it canonicalises, and its stated digest is the one Evals
// computes. A catalog whose text is not canonical (keys in insertion order) is told apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalize } from '@paperclip-evals/contract';

/** Upstream's rule for the catalog's canonical text, written from its description. */
function sortedKeyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedKeyJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedKeyJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** JSON values without lone surrogates (RFC 8785 refuses those; no catalog carries one). */
const json = fc.jsonValue().filter((value) => !/[\uD800-\uDFFF]/.test(JSON.stringify(value)));

describe("upstream's catalog canonical text", () => {
  it('is the RFC 8785 canonical form of the same value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(sortedKeyJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('differs from plain JSON.stringify for an object whose keys are not in order', () => {
    const catalog = [{ operationId: 'read_document', description: 'Read.', version: 1 }];
    expect(canonicalize(catalog)).not.toBe(JSON.stringify(catalog));
    expect(sortedKeyJson(catalog)).toBe(canonicalize(catalog));
  });
});
