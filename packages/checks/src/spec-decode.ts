// An assertion's spec as the Attest engine's evaluators decode it (segmentio/encoding/json v0.5.3):
// each evaluator unmarshals the WHOLE spec into its struct before it looks at the check, so a member
// of the wrong type fails the assertion even when the check named does not use it (`"soft": "yes"`
// on a content check, `"tools": "a"` on no_duplicates): content.go, constraint.go, trace_check.go,
// schema.go, embedding_eval.go, judge_eval.go (their structs), trace_tree_eval.go (a base struct of
// check and soft, then each check's own). This module holds those structs (member, Go type, tag —
// the facts) and reads a spec against one the way the decoder does: members in the spec's order, the
// first that does not decode is the error, in Go's words — `json: cannot unmarshal <the value's
// text from there to the spec's end, quoted, 32 bytes at most> into Go struct field <struct
// type>.<member> of type <type>`. null decodes into anything. Members match by exact name here (the
// decoder also matches case-insensitively: docs/checks-engine.md, "Ours deliberately different").
import { goPrefix, goParseInt64 } from './go-decode.js';
import { goQuote } from './go-text.js';
import { rememberSource, sourceSpan, sourceText } from './request-text.js';

import type { AssertionType } from './assertion-types.js';

type GoType =
  'string' | 'bool' | 'float64' | '*float64' | 'int' | '[]string' | '[][]string' | 'json.RawMessage';

/** A struct's members: [Go name, Go type, json tag]. */
type GoFields = readonly (readonly [string, GoType, string])[];

interface GoStruct {
  /** reflect's String() of the struct type: a named type's name, else its literal. */
  readonly type: string;
  /** json name → Go type. */
  readonly members: ReadonlyMap<string, GoType>;
}

/** An anonymous struct, named as reflect names it: `struct { Check string "json:\"check\""; … }`. */
function literal(fields: GoFields): GoStruct {
  const declared = fields.map(([name, type, tag]) => `${name} ${type} ${goQuote(`json:"${tag}"`)}`);
  return named(`struct { ${declared.join('; ')} }`, fields);
}

function named(type: string, fields: GoFields): GoStruct {
  return { type, members: new Map(fields.map(([, goType, tag]) => [tag.split(',')[0] ?? tag, goType])) };
}

const OPERATOR_VALUE: GoFields = [
  ['Operator', 'string', 'operator'],
  ['Value', 'float64', 'value'],
];
const AGENT_PAIR: GoFields = [
  ['AgentA', 'string', 'agent_a'],
  ['AgentB', 'string', 'agent_b'],
];

/** Each assertion type's struct, and how its decode error is worded (`invalid content spec: …`). */
const SPEC_STRUCTS: Partial<Record<AssertionType, { readonly struct: GoStruct; readonly label: string }>> = {
  content: {
    label: 'invalid content spec',
    struct: literal([
      ['Target', 'string', 'target'],
      ['Check', 'string', 'check'],
      ['Value', 'string', 'value,omitempty'],
      ['Values', '[]string', 'values,omitempty'],
      ['Soft', 'bool', 'soft'],
      ['CaseSensitive', 'bool', 'case_sensitive'],
    ]),
  },
  schema: {
    label: 'invalid schema spec',
    struct: literal([
      ['Target', 'string', 'target'],
      ['Schema', 'json.RawMessage', 'schema'],
    ]),
  },
  constraint: {
    label: 'invalid constraint spec',
    struct: literal([
      ['Field', 'string', 'field'],
      ['Operator', 'string', 'operator'],
      ['Value', '*float64', 'value,omitempty'],
      ['Min', '*float64', 'min,omitempty'],
      ['Max', '*float64', 'max,omitempty'],
      ['Soft', 'bool', 'soft'],
    ]),
  },
  trace: {
    label: 'invalid trace spec',
    struct: literal([
      ['Check', 'string', 'check'],
      ['Tools', '[]string', 'tools,omitempty'],
      ['Tool', 'string', 'tool,omitempty'],
      ['MaxRepetitions', 'int', 'max_repetitions,omitempty'],
      ['Soft', 'bool', 'soft'],
    ]),
  },
  trace_tree: {
    label: 'invalid trace_tree spec',
    struct: literal([
      ['Check', 'string', 'check'],
      ['Soft', 'bool', 'soft'],
    ]),
  },
  embedding: {
    label: 'invalid embedding spec',
    struct: named('assertion.embeddingSpec', [
      ['Target', 'string', 'target'],
      ['Reference', 'string', 'reference'],
      ['Threshold', 'float64', 'threshold'],
      ['Soft', 'bool', 'soft'],
    ]),
  },
  llm_judge: {
    label: 'invalid judge spec',
    struct: named('assertion.judgeSpec', [
      ['Target', 'string', 'target'],
      ['Criteria', 'string', 'criteria'],
      ['Rubric', 'string', 'rubric'],
      ['Threshold', 'float64', 'threshold'],
      ['Soft', 'bool', 'soft'],
      ['Model', 'string', 'model'],
      ['MetaEval', 'bool', 'meta_eval'],
    ]),
  },
};

/** Each trace_tree check's own struct (trace_tree_eval.go), its error worded `<check>: invalid spec: …`. */
const TREE_CHECK_STRUCTS: Readonly<Record<string, GoStruct>> = {
  agent_called: literal([['AgentID', 'string', 'agent_id']]),
  delegation_depth: literal([['MaxDepth', 'int', 'max_depth']]),
  agent_output_contains: literal([
    ['AgentID', 'string', 'agent_id'],
    ['Value', 'string', 'value'],
    ['CaseSensitive', 'bool', 'case_sensitive'],
  ]),
  cross_agent_data_flow: literal([
    ['FromAgent', 'string', 'from_agent'],
    ['ToAgent', 'string', 'to_agent'],
    ['Field', 'string', 'field'],
  ]),
  aggregate_cost: literal(OPERATOR_VALUE),
  aggregate_tokens: literal(OPERATOR_VALUE),
  aggregate_latency: literal(OPERATOR_VALUE),
  follows_transitions: literal([['Transitions', '[][]string', 'transitions']]),
  agent_ordered_before: literal(AGENT_PAIR),
  agents_overlap: literal(AGENT_PAIR),
  agent_wall_time_under: literal([
    ['AgentID', 'string', 'agent_id'],
    ['MaxMS', 'float64', 'max_ms'],
  ]),
  ordered_agents: literal([['Groups', '[][]string', 'groups']]),
};

/** Where a value that does not decode sits: the types crossed inside the member, its path, its type. */
interface Mismatch {
  readonly at: readonly (string | number)[];
  /** The slice types crossed from the member to the value (`[]string`, `[][]string[]string`). */
  readonly crossed: string;
  readonly type: string;
  /** How the value is written in the error (decided by the caller from the text). */
  readonly reading: 'type' | 'overflow' | 'fraction';
}

/** Why `value` does not decode into `type`, or undefined when it does (null always does). */
function mismatchOf(value: unknown, type: GoType, at: (string | number)[]): Mismatch | undefined {
  if (value === null) return undefined;
  const wrong = (shown: string): Mismatch => ({ at, crossed: '', type: shown, reading: 'type' });
  switch (type) {
    case 'json.RawMessage':
      return undefined;
    case 'string':
      return typeof value === 'string' ? undefined : wrong('string');
    case 'bool':
      return typeof value === 'boolean' ? undefined : wrong('bool');
    case 'float64':
    case '*float64':
      // A number out of a double's range (1e400) does not decode either (JSON.parse reads it as ±Infinity).
      return typeof value === 'number' && Number.isFinite(value) ? undefined : wrong('float64');
    case 'int':
      return typeof value === 'number' ? undefined : wrong('int');
    case '[]string':
    case '[][]string': {
      if (!Array.isArray(value)) return wrong(type);
      const element: GoType = type === '[]string' ? 'string' : '[]string';
      for (let index = 0; index < value.length; index++) {
        const inner = mismatchOf(value[index], element, [...at, index]);
        if (inner !== undefined) return { ...inner, crossed: `${type}${inner.crossed}` };
      }
      return undefined;
    }
  }
}

/**
 * The first member of `spec` that does not decode into `struct`, in the spec's order, as the
 * decoder's error text; undefined when every member decodes. An int member is read from its text
 * as the decoder reads it (a fraction, `3.0` too, or an overflow does not decode).
 */
function structDecodeError(spec: Record<string, unknown>, struct: GoStruct): string | undefined {
  for (const [key, value] of Object.entries(spec)) {
    const type = struct.members.get(key);
    if (type === undefined) continue;
    let mismatch = mismatchOf(value, type, [key]);
    if (mismatch === undefined && type === 'int') {
      const reading = goParseInt64(specText(spec, [key]));
      if (!reading.ok) mismatch = { at: [key], crossed: '', type: 'int', reading: reading.problem };
    }
    if (mismatch === undefined) continue;
    const rest = specText(spec, mismatch.at, true);
    const shown =
      mismatch.reading === 'overflow'
        ? `number ${goPrefix(rest)} overflows`
        : goQuote(goPrefix(mismatch.reading === 'fraction' ? specText(spec, mismatch.at) : rest));
    return `json: cannot unmarshal ${shown} into Go struct field ${struct.type}${mismatch.crossed}.${mismatch.at.join('.')} of type ${mismatch.type}`;
  }
  return undefined;
}

/**
 * The text of the spec's value at `at` as the request wrote it (a spec from no line: as its JSON) —
 * with `toEnd`, from that value's start to the end of the spec: the bytes the decoder had left
 * when it failed there.
 */
function specText(spec: Record<string, unknown>, at: readonly (string | number)[], toEnd = false): string {
  if (sourceSpan(spec, []) === undefined) rememberSource(spec, JSON.stringify(spec), []);
  const whole = sourceSpan(spec, []);
  const span = sourceSpan(spec, at);
  const text = sourceText(spec, []) ?? '';
  if (whole === undefined || span === undefined) return '';
  return text.slice(span.start - whole.start, toEnd ? undefined : span.end - whole.start);
}

/**
 * Why the Attest engine's evaluator of `type` could not decode `spec` into its struct, in its words
 * (`invalid content spec: json: cannot unmarshal …`; for trace_tree, the base struct first, then the
 * check's own: `aggregate_cost: invalid spec: json: …`), or undefined when it decodes. A type with
 * no struct there (effect, plugin) decodes whatever it holds.
 */
export function specDecodeError(type: AssertionType, spec: Record<string, unknown>): string | undefined {
  const known = SPEC_STRUCTS[type];
  if (known === undefined) return undefined;
  const base = structDecodeError(spec, known.struct);
  if (base !== undefined) return `${known.label}: ${base}`;
  if (type !== 'trace_tree' || typeof spec.check !== 'string') return undefined;
  const own = TREE_CHECK_STRUCTS[spec.check];
  const error = own === undefined ? undefined : structDecodeError(spec, own);
  return error === undefined ? undefined : `${spec.check}: invalid spec: ${error}`;
}
