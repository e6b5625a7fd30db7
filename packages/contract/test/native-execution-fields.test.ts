// The field places of the native-execution parser against our schemas: the timestamp rule covers
// every timestamp field (our PRP `instant`, upstream's date-time pattern), the tool event types are the ones the PRP event schema gives a
// semantic_tool payload, and every text field of the bundle schema is required text (or a listed
// Evals-only field). A schema that grows a field the rules do not know fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import {
  REQUIRED_TEXT_PLACES,
  TIMESTAMP_PLACES,
  UPSTREAM_DATE_TIME,
  isRealInstant,
} from '../src/native-execution-fields.ts';
import { TOOL_EVENT_TYPES } from '../src/native-execution-invariants.ts';
import { nativeExecutionIssues } from '../src/native-execution.ts';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

type Node = Record<string, unknown>;

const schema = (relative: string): Node =>
  JSON.parse(readFileSync(new URL(`../../../schemas/${relative}`, import.meta.url), 'utf8')) as Node;
const EVENT = schema('prp/v1/event.schema.json');
const BUNDLE = schema('runner/native-execution-v1.schema.json');

/** Every [path, node] of a JSON value. */
function* nodes(value: unknown, path: string[] = []): Generator<[string[], Node]> {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) yield [path, value as Node];
  for (const [key, child] of Object.entries(value)) yield* nodes(child, [...path, key]);
}

/** The $defs a local `#/$defs/…` reference names. */
const defName = (ref: unknown): string | undefined =>
  typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;

describe('timestamp places', () => {
  it('are every timestamp field of the runner and PRP v1 schemas', () => {
    const files = [
      'runner/native-execution-v1.schema.json',
      ...[
        'event',
        'output-body-reference',
        'provider-event-payloads',
        'result',
        'semantic-tool',
        'terminal',
        'usage',
        'workspace-diff',
        'workspace-file-reference',
      ].map((name) => `prp/v1/${name}.schema.json`),
    ];
    const dateTimeDefs: string[] = [];
    for (const file of files) {
      for (const [path, node] of nodes(schema(file))) {
        // ajv-formats' `date-time` is lenient RFC 3339: upstream's validators compile it as their
        // pattern, so our schemas state that pattern instead (schema verdicts equal to upstream's).
        expect(node.format, `${file}#/${path.join('/')}`).not.toBe('date-time');
        if (typeof node.pattern !== 'string' || !node.pattern.includes('T\\d{2}:')) continue;
        expect(`${file}#/${path.join('/')}`).toBe('prp/v1/event.schema.json#/$defs/instant');
        expect(node.pattern).toBe(UPSTREAM_DATE_TIME.source);
        dateTimeDefs.push(path.at(-1) ?? '');
      }
    }
    expect(dateTimeDefs).toEqual(['instant']);
    const users = [...nodes(EVENT)]
      .filter(([, node]) => defName(node.$ref) === 'instant')
      .map(([path]) => path.join('/'));
    expect(users.sort()).toEqual(['properties/emittedAt', 'properties/observedAt']);
    // Bundle events are PRP events, at /events/*.
    expect((BUNDLE.properties as Record<string, Node>).events?.items).toEqual({ $ref: EVENT.$id });
    expect(TIMESTAMP_PLACES).toEqual([
      ['events', '*', 'emittedAt'],
      ['events', '*', 'observedAt'],
    ]);
  });

  it('names a real instant only with every field in range', () => {
    expect(isRealInstant('2024-02-29T00:00:00Z')).toBe(true);
    expect(isRealInstant('2016-12-31T23:59:60.000Z')).toBe(true);
    for (const text of [
      '2023-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T12:60:00Z',
      '2026-01-01T12:00:60Z',
      '2026-01-01T23:59:61Z',
    ])
      expect(isRealInstant(text), text).toBe(false);
  });
});

describe('the timestamp rule', () => {
  // The schema refuses these too (upstream's pattern); the parser reports its own rule alone, once.
  const malformed = [
    '2026-11-30T12:00:00+01:00',
    '2026-11-30t12:00:00.000Z',
    '2026-11-30T12:00:00.000z',
    '2026-11-30 12:00:00.000Z',
    '2026-11-30T12:00:00.12Z',
    '2026-11-30T12:00:00.123456Z',
    '2026-11-30T12:00Z',
    '',
    7,
  ];
  const withAt = (field: string, value: unknown): [Record<string, unknown>, string] => {
    const bundle = syntheticAttempt({ toolCalls: 1 });
    (bundle.events as Record<string, unknown>[])[1]![field] = value;
    return [bundle, `/events/1/${field}`];
  };
  const found = (bundle: Record<string, unknown>): string[] =>
    nativeExecutionIssues(bundle).map((issue) => `${issue.code} ${issue.path ?? ''}`);

  it.each(malformed.flatMap((value) => ['emittedAt', 'observedAt'].map((field) => [field, value])))(
    'refuses %s %j with one timestamp_invalid at its pointer',
    (field, value) => {
      const [bundle, path] = withAt(field as string, value);
      expect(found(bundle)).toEqual([`timestamp_invalid ${path}`]);
    },
  );

  it.each(['emittedAt', 'observedAt'])('refuses an impossible %s with one timestamp_impossible', (field) => {
    const [bundle, path] = withAt(field, '2026-13-45T12:00:00.000Z');
    expect(found(bundle)).toEqual([`timestamp_impossible ${path}`]);
  });

  it.each(['2026-11-30T12:00:00Z', '2026-11-30T12:00:00.123Z'])('accepts %s at observedAt', (text) => {
    const [bundle] = withAt('observedAt', text);
    expect(found(bundle)).toEqual([]);
  });
});

describe('tool event types', () => {
  it('are the event types the PRP event schema gives a payload with semantic_tool', () => {
    const defs = EVENT.$defs as Record<string, Node>;
    const carriesEnvelope = (ref: unknown): boolean => {
      const name = defName(ref);
      const properties = name === undefined ? undefined : (defs[name]?.properties as Node | undefined);
      return properties !== undefined && Object.hasOwn(properties, 'semantic_tool');
    };
    const types: string[] = [];
    for (const [, node] of nodes(EVENT)) {
      const condition = (node.if as Node | undefined)?.properties as Record<string, Node> | undefined;
      const payload = ((node.then as Node | undefined)?.properties as Record<string, Node> | undefined)
        ?.payload;
      if (condition?.eventType === undefined || !carriesEnvelope(payload?.$ref)) continue;
      const { const: one, enum: many } = condition.eventType as { const?: string; enum?: string[] };
      types.push(...(many ?? (one === undefined ? [] : [one])));
    }
    expect([...TOOL_EVENT_TYPES].sort()).toEqual(types.sort());
    expect(types).toHaveLength(5);
  });
});

describe('required text places', () => {
  /** Text fields of the bundle schema that only Evals types (eval-session cost fields; upstream reads none). */
  const EVALS_ONLY_TEXT = ['/usage/providerReportedCostProvenance', '/usage/pricingVersion'];

  it('hold every text field of the bundle schema', () => {
    /** Instance paths (`*` for array items) of every `text` field and every contentRef's uri and mediaType. */
    const textFields = (node: Node, path: string): string[] => {
      const ref = defName(node.$ref);
      if (ref === 'text') return [path];
      if (ref === 'contentRef') return [`${path}/uri`, `${path}/mediaType`];
      return [
        ...((node.allOf as Node[] | undefined) ?? []).flatMap((part) => textFields(part, path)),
        ...Object.entries((node.properties as Record<string, Node> | undefined) ?? {}).flatMap(
          ([key, child]) => textFields(child, `${path}/${key}`),
        ),
        ...(node.items === undefined ? [] : textFields(node.items as Node, `${path}/*`)),
      ];
    };
    const inSchema = textFields(BUNDLE, '').filter((path) => !EVALS_ONLY_TEXT.includes(path));
    expect(inSchema).toContain('/artifacts/*/uri');
    expect(inSchema).toContain('/transcript/mediaType');
    const listed = REQUIRED_TEXT_PLACES.map((place) => `/${place.join('/')}`);
    for (const path of inSchema) expect(listed, path).toContain(path);
  });

  it('refuses each listed place of a bundle that holds it, at its pointer', () => {
    const bundle = syntheticAttempt({
      toolCalls: 2,
      deniedCalls: 1,
      runTerminalState: 'failed',
      transcriptOmission: 'cut',
    });
    for (const place of REQUIRED_TEXT_PLACES) {
      const copy = structuredClone(bundle);
      let node: unknown = copy;
      const tokens = place.map((token) => (token === '*' ? '0' : token));
      for (const token of tokens.slice(0, -1)) node = (node as Record<string, unknown>)[token];
      (node as Record<string, unknown>)[tokens.at(-1) ?? ''] = '\u2003';
      const found = nativeExecutionIssues(copy).map((issue) => `${issue.code} ${issue.path ?? ''}`);
      expect(found).toContain(`text_required /${tokens.join('/')}`);
    }
  });
});
