// How an error reads on stderr when it has many issues: at most MAX_DESCRIBED_ISSUES issue lines,
// then one line saying how many more there were (a file that is not YAML gives hundreds of
// follow-on problems); an error with fewer is described whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';
import { MAX_DESCRIBED_ISSUES, describeError } from '../src/exit-codes.ts';

const withIssues = (count: number): ContractError =>
  new ContractError(
    'paperclip_contract_document_invalid',
    'env.yaml is not a strict YAML document',
    Array.from({ length: count }, (_, index) => ({
      code: 'yaml_unexpected_token',
      message: `problem ${index + 1}`,
      path: '',
      expected: 'strict YAML',
      received: `line ${index + 1}`,
    })),
  );

describe('describeError with many issues', () => {
  it.each([
    [1, 1, null],
    [MAX_DESCRIBED_ISSUES, MAX_DESCRIBED_ISSUES, null],
    [MAX_DESCRIBED_ISSUES + 1, MAX_DESCRIBED_ISSUES, '1 more issue'],
    [224, MAX_DESCRIBED_ISSUES, '199 more issues'],
  ])('%i issues: %i described, then %s', (count, described, more) => {
    const lines = describeError(withIssues(count));
    const issueLines = lines.filter((line) => /problem \d+/.test(line));
    expect(issueLines).toHaveLength(described);
    expect(issueLines.at(-1)).toContain(`problem ${described}`);
    const last = lines.at(-1) ?? '';
    if (more === null) expect(last).toContain(`problem ${count}`);
    else expect(last).toMatch(new RegExp(`… and ${more} \\(${MAX_DESCRIBED_ISSUES} of ${count} shown`));
  });

  it('never more than MAX_DESCRIBED_ISSUES + 2 lines, and the count adds up (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), (count) => {
        const lines = describeError(withIssues(count));
        expect(lines.length).toBeLessThanOrEqual(MAX_DESCRIBED_ISSUES + 2);
        const hidden = /… and (\d+) more/.exec(lines.at(-1) ?? '')?.[1];
        const shown = lines.filter((line) => /problem \d+/.test(line)).length;
        expect(shown + Number(hidden ?? 0)).toBe(count);
      }),
    );
  });
});
