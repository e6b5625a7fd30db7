// The native-execution/v1 parser against upstream's seeded fixture and the full mutation table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { ACCEPTED_VARIANTS, MUTATIONS, MUTATION_BASE_OPTIONS } from '@paperclip-evals/test-kit/mutations';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { ContractError } from '../src/errors.ts';
import { nativeExecutionIssues, parseNativeExecution } from '../src/native-execution.ts';
import { NATIVE_EXECUTION_RULES } from '../src/native-execution-rules.ts';
import { UPSTREAM_PROTOCOL_DIR, needsUpstream } from '@paperclip-evals/test-kit/upstream';

import type { MutationRow } from '@paperclip-evals/test-kit/mutations';
import type { Issue } from '../src/errors.ts';

const SEEDED_FIXTURE = `${UPSTREAM_PROTOCOL_DIR}/fixtures/evals/native-execution-seeded.json`;
const HAVE_UPSTREAM = needsUpstream(import.meta.url, "the parser's checks on upstream's seeded fixture");

const baseText = (): string => `${JSON.stringify(syntheticAttempt(MUTATION_BASE_OPTIONS), null, 2)}\n`;

/** The parser's issues for one mutation row ([] if it parsed). */
function issuesOf(row: MutationRow): readonly Issue[] {
  const base = baseText();
  let input: Uint8Array | string = base;
  if (row.mutateText !== undefined) input = row.mutateText(base);
  else if (row.mutate !== undefined) {
    const bundle = JSON.parse(base) as Record<string, unknown>;
    row.mutate(bundle);
    input = JSON.stringify(bundle, null, 2);
  }
  try {
    parseNativeExecution(input, row.limits);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).code).toBe('paperclip_native_execution_invalid');
    return (error as ContractError).issues;
  }
}

describe.skipIf(!HAVE_UPSTREAM)('the upstream seeded fixture', () => {
  const bytes = HAVE_UPSTREAM ? readFileSync(SEEDED_FIXTURE) : new Uint8Array();

  it('validates', () => {
    expect(parseNativeExecution(bytes).identity.attemptId).toBe('attempt_semantic_denial_0001');
  });

  it('keeps x_fixturePurpose and every other field through parse → serialise → parse', () => {
    const original: unknown = JSON.parse(bytes.toString('utf8'));
    const parsed = parseNativeExecution(bytes);
    expect(parsed.x_fixturePurpose).toBe(
      'Proves seeded provenance, denied effects, and additive field preservation.',
    );
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(original);
  });

  it('keeps unknown additive fields in every nested contract object', () => {
    const bundle = JSON.parse(bytes.toString('utf8')) as Record<string, Record<string, unknown>>;
    const places: Record<string, unknown>[] = [
      bundle,
      bundle.identity!,
      bundle.input!,
      bundle.runner!,
      (bundle.events as unknown as Record<string, unknown>[])[0]!,
      (bundle.events as unknown as Record<string, Record<string, unknown>>[])[0]!.payload!,
      (bundle.events as unknown as Record<string, Record<string, Record<string, unknown>>>[])[0]!.payload!
        .semantic_tool!,
      bundle.semanticTools!,
      ...(['definitions', 'calls', 'results', 'denials'] as const).map(
        (list) => (bundle.semanticTools![list] as Record<string, unknown>[])[0]!,
      ),
      bundle.usage!,
      bundle.usage!.cost as Record<string, unknown>,
      bundle.transcript!,
      bundle.artifactRoot!,
      (bundle.artifacts as unknown as Record<string, unknown>[])[0]!,
      bundle.observations!,
    ];
    places.forEach((place, index) => (place[`x_future_${index}`] = { kept: index }));
    // The terminal must equal its run.terminal payload in every field, unknown ones included.
    bundle.terminal!.x_future_terminal = 'both';
    (bundle.events as unknown as Record<string, Record<string, unknown>>[])[3]!.payload!.x_future_terminal =
      'both';
    const text = JSON.stringify(bundle);
    expect(JSON.parse(JSON.stringify(parseNativeExecution(text)))).toEqual(JSON.parse(text));
  });
});

describe('the mutation table', () => {
  it('starts from a valid bundle', () => {
    expect(nativeExecutionIssues(JSON.parse(baseText()))).toEqual([]);
  });

  it('has a row for every rule, and no row for an unlisted rule', () => {
    const covered = new Set(MUTATIONS.map((row) => row.rule));
    expect([...covered].sort()).toEqual(Object.keys(NATIVE_EXECUTION_RULES).sort());
  });

  it.each(MUTATIONS.map((row) => [row.name, row] as const))('refuses %s', (_name, row) => {
    const issues = issuesOf(row);
    expect(issues.map((issue) => `${issue.code} ${issue.path ?? ''}`)).toContain(`${row.rule} ${row.path}`);
    for (const issue of issues) {
      expect(Object.keys(NATIVE_EXECUTION_RULES)).toContain(issue.code);
      expect(issue.message).not.toBe('');
      expect(issue).toHaveProperty('expected');
      expect(issue).toHaveProperty('received');
    }
    // A value breaking one rule through two schema paths is one issue, not two that read alike.
    const shown = issues.map((issue) => JSON.stringify(issue));
    expect(shown).toEqual([...new Set(shown)]);
  });

  it('lists a denied semantic tool outcome changed to one outside its enum once, though two schema paths reach it', () => {
    const bundle = syntheticAttempt({ toolCalls: 1, deniedCalls: 1 }) as {
      events: { payload: { semantic_tool?: { outcome?: unknown } } }[];
    };
    const event = bundle.events.find((candidate) => candidate.payload.semantic_tool?.outcome === 'denied');
    expect(event).toBeDefined();
    event!.payload.semantic_tool!.outcome = 'maybe';
    const schema = nativeExecutionIssues(bundle).filter((issue) => issue.code === 'schema_violation');
    expect(schema).toHaveLength(1);
    expect(schema[0]?.path).toMatch(/\/payload\/semantic_tool\/outcome$/);
  });

  it('reports every issue at once, not the first', () => {
    const independent = [
      'event-from-another-run',
      'case-digest-uppercase',
      'terminal-state-differs',
      'denied-result-indexed-as-succeeded',
      'denial-retryable-differs',
      'correlation-turn-differs',
      'emitted-at-offset',
      'definition-empty',
      'total-tokens-off-by-one',
      'transcript-count-differs',
      'attempt-id-missing',
    ];
    const rows = MUTATIONS.filter((row) => independent.includes(row.name));
    const bundle = JSON.parse(baseText()) as Record<string, unknown>;
    rows.forEach((row) => row.mutate?.(bundle));
    const found = nativeExecutionIssues(bundle).map((issue) => `${issue.code} ${issue.path ?? ''}`);
    expect(rows).toHaveLength(independent.length);
    expect(found.sort()).toEqual(rows.map((row) => `${row.rule} ${row.path}`).sort());
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access --
   the changes poke at arbitrary places of a bundle. */
describe('what upstream accepts (the accepted-variants table)', () => {
  /** The issues of a changed copy of the base bundle, through the real parser ([] if it parsed). */
  const issuesAfter = (change: (bundle: Record<string, any>) => unknown): string[] => {
    const bundle = JSON.parse(baseText()) as Record<string, any>;
    change(bundle);
    return issuesOf({
      name: 'variant',
      rule: 'schema_violation',
      path: '',
      mutateText: () => JSON.stringify(bundle),
    }).map((issue) => `${issue.code} ${issue.path ?? ''}`);
  };

  it.each(ACCEPTED_VARIANTS.map((variant) => [variant.name, variant] as const))(
    'accepts %s',
    (_, variant) => {
      expect(issuesAfter(variant.mutate)).toEqual([]);
    },
  );

  it.each([
    ['mcp_app.tool_input', 2],
    ['mcp_app.tool_result', 3],
  ] as const)('still refuses a differing correlation on the indexed %s event', (eventType, index) => {
    const issues = issuesAfter((bundle) => {
      expect(bundle.events[index].eventType).toBe(eventType);
      bundle.events[index].payload.semantic_tool.correlation.itemId = 'item_other';
    });
    expect(issues).toContain(
      `semantic_correlation_mismatch /events/${index}/payload/semantic_tool/correlation/itemId`,
    );
  });
});

describe('docs/native-execution.md', () => {
  it('lists every rule with its origin, and no other', () => {
    const doc = readFileSync(new URL('../../../docs/native-execution.md', import.meta.url), 'utf8');
    const rows = [
      ...doc.matchAll(/^\| `([a-z0-9_]+)`\s*\|.*\|\s*(schema|upstream parser|evals)\s*\|$/gm),
    ].map((match) => `${match[1] ?? ''} ${match[2] ?? ''}`);
    const expected = Object.entries(NATIVE_EXECUTION_RULES).map(([code, rule]) => `${code} ${rule.origin}`);
    expect(rows.sort()).toEqual(expected.sort());
  });
});
