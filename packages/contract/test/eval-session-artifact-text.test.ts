// An eval-session artifact's text fields are text as upstream means it: its bin copies attemptId and
// requestedModel from a request whose parser (`parseEvalSessionRequest`, src/cli/eval-session-contract.ts
// in paperclipai/paperclip) refuses a blank one (`value.trim().length > 0`), so no artifact upstream
// writes holds whitespace there — and our text fields (evalCase, nativeExecution.path, …) follow the
// same rule as the native parser's text_required. Every `$defs/text` place of the artifact schema is
// checked (a test holds the list equal to the schema); any whitespace `trim` removes is refused.
// A parsed value handed to the API is held to the text's number rule (json_number_unsafe).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ARTIFACT_TEXT_PLACES,
  evalSessionArtifactIssues,
  parseEvalSessionArtifact,
} from '../src/eval-session-artifact.ts';
import {
  upstreamFailure,
  upstreamMissingCell,
  upstreamSuccess,
} from '@paperclip-evals/test-kit/upstream-artifacts';

type Json = Record<string, unknown>;

const issues = (value: unknown): string[] =>
  evalSessionArtifactIssues(value).map((issue) => `${issue.code} ${issue.path ?? ''}`);

/** A success artifact stating every optional text field (each valid). */
function everyTextField(): Json {
  const artifact = upstreamSuccess('attempt_text_0001');
  artifact.accountingError = 'estimated cost limit exceeded';
  artifact.accountingFailure = {
    class: 'provider_budget_reached',
    category: 'provider_budget',
    retryable: false,
  };
  artifact.synthesizedBy = 'paperclip-evals campaign';
  artifact.evalCase = {
    runId: 'run_1',
    caseId: 'case_1',
    caseSha256: `sha256:${'1'.repeat(64)}`,
    configId: 'config_1',
    configSha256: `sha256:${'2'.repeat(64)}`,
  };
  artifact.nativeExecution = { path: 'bundle.json', sha256: `sha256:${'3'.repeat(64)}`, byteSize: 10 };
  return artifact;
}

/** An artifact stating the field at `place`: a failure artifact for infrastructureError, else everyTextField. */
const baseFor = (place: readonly string[]): Json =>
  place[0] === 'infrastructureError'
    ? upstreamFailure('attempt_text_0001', 'eval_orchestration_failure', true)
    : everyTextField();

/** The value at a place, and a setter for it. */
function at(document: Json, place: readonly string[]): { value: unknown; set: (value: unknown) => void } {
  let parent: Json = document;
  for (const token of place.slice(0, -1)) parent = parent[token] as Json;
  const last = place.at(-1) ?? '';
  return { value: parent[last], set: (value) => (parent[last] = value) };
}

const WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

describe('eval-session artifact text', () => {
  it('accepts the artifacts upstream writes, and one stating every text field', () => {
    expect(issues(upstreamSuccess('a_1'))).toEqual([]);
    expect(issues(upstreamFailure('a_1', 'provider_turn_timeout', true))).toEqual([]);
    expect(issues(upstreamMissingCell())).toEqual([]);
    expect(issues(everyTextField())).toEqual([]);
  });

  it.each(ARTIFACT_TEXT_PLACES.map((place) => [place.join('.'), place] as const))(
    'refuses whitespace alone at %s',
    (_name, place) => {
      const artifact = baseFor(place);
      const field = at(artifact, place);
      expect(typeof field.value).toBe('string');
      field.set(' \u3000\t');
      expect(issues(artifact)).toEqual([`text_required /${place.join('/')}`]);
    },
  );

  it('refuses any run of whitespace trim removes, at any text place, and keeps text around it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ARTIFACT_TEXT_PLACES),
        fc.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (place, spaces, withText) => {
          const artifact = baseFor(place);
          const blank = spaces.join('');
          at(artifact, place).set(withText ? `${blank}x${blank}` : blank);
          expect(issues(artifact)).toEqual(withText ? [] : [`text_required /${place.join('/')}`]);
        },
      ),
      { numRuns: 300, seed: 20261202 },
    );
  });

  it('refuses a blank attemptId through the text parser too, saying where', () => {
    const text = JSON.stringify({ ...upstreamSuccess('x'), attemptId: '\u00a0' });
    expect(() => parseEvalSessionArtifact(text)).toThrow(/text_required at \/attemptId/);
  });

  it('lists every $defs/text place of the artifact schema, and no other', () => {
    const schema = JSON.parse(
      readFileSync(
        new URL('../../../schemas/runner/eval-session-artifact-v1.schema.json', import.meta.url),
        'utf8',
      ),
    ) as Json;
    // Property names whose schema is `$defs/text`, wherever they sit.
    const named = new Set<string>();
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as Json).properties;
      if (typeof properties === 'object' && properties !== null)
        for (const [name, child] of Object.entries(properties as Json))
          if ((child as Json).$ref === '#/$defs/text') named.add(name);
      Object.values(node as Json).forEach(walk);
    };
    walk(schema);
    expect([...new Set(ARTIFACT_TEXT_PLACES.map((place) => place.at(-1)))].sort()).toEqual([...named].sort());
  });
});

describe('eval-session artifact numbers, handed over as a value', () => {
  it.each([
    ['usage.inputTokens', '/usage/inputTokens', 2 ** 53],
    ['usage.estimatedCostNanodollars', '/usage/estimatedCostNanodollars', Infinity],
    ['timing.durationMs', '/timing/durationMs', Number.NaN],
  ] as const)('refuses %s beyond ±(2^53 − 1) as its text would be', (name, path, number) => {
    const artifact = upstreamSuccess('attempt_number_0001');
    const [parent, field] = name.split('.') as [string, string];
    (artifact[parent] as Json)[field] = number;
    expect(issues(artifact)).toContain(`json_number_unsafe ${path}`);
  });
});
