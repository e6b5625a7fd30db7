// Numbers as the Attest engine's decoder reads them into its structs (segmentio/encoding/json
// v0.5.3 into pkg/types): where that engine decodes a number, the request's number must decode
// there, and is read as it is there. An int field (int, int64) reads its digits as int64 with
// segmentio's parseInt (parse.go:83-157): a fraction or an exponent does not decode ("was this
// actually a float?"), nor does a negative number below -2^63, and a positive number past 2^63 − 1
// does not decode where its overflow check sees it (`next < value`) but wraps where it does not
// (25000000000000000000 is read as 6553255926290448384). A float64 field reads any number a double
// holds, rounded (strconv.ParseFloat); one out of its range (1e400) does not decode (decode.go:246).
// A member the struct does not have is skipped whatever it holds (decode.go:1208-1215), and raw
// members (json.RawMessage: input, output, args, result, metadata of a step, spec) keep their text.
// The first member that does not decode, in the line's order, fails the method's params, with
// Go's words for it (UnmarshalTypeError: the structs crossed, outermost first, and the path).
import { goQuote } from './go-text.js';
import { rememberSource, sourceSpan, sourceText } from './request-text.js';

type GoNumberType = 'int' | 'int64' | 'float64';

/** Why a number token does not decode into a Go int64 (parseInt), or the int64 it reads as. */
export type GoIntReading =
  | { readonly ok: true; readonly value: bigint }
  | { readonly ok: false; readonly problem: 'overflow' | 'fraction' };

const INT64_MIN = -(2n ** 63n);

/** A JSON number token read as segmentio's parseInt reads it into an int64 (parse.go:83-157). */
export function goParseInt64(token: string): GoIntReading {
  let value = 0n;
  let count = 0;
  if (token.startsWith('-')) {
    const lim = INT64_MIN / 10n;
    for (const char of token.slice(1)) {
      if (char < '0' || char > '9') break;
      if (value < lim) return { ok: false, problem: 'overflow' };
      value *= 10n;
      const digit = BigInt(char.charCodeAt(0) - 48);
      if (value < INT64_MIN + digit) return { ok: false, problem: 'overflow' };
      value -= digit;
      count++;
    }
    count++;
  } else {
    for (; count < token.length && /[0-9]/.test(token[count] ?? ''); count++) {
      // int64 arithmetic: value*10 + x wraps, and only a result below value is seen as overflow.
      const next = BigInt.asIntN(64, value * 10n + BigInt(token.charCodeAt(count) - 48));
      if (next < value) return { ok: false, problem: 'overflow' };
      value = next;
    }
  }
  if (count < token.length && /[.eE]/.test(token[count] ?? '')) return { ok: false, problem: 'fraction' };
  return { ok: true, value };
}

/** segmentio's prefix (codec.go:1035): the first 32 bytes of `text`, and "..." when there are more. */
export function goPrefix(text: string): string {
  const bytes = Buffer.from(text.slice(0, 33));
  return bytes.length < 32 ? text : `${bytes.subarray(0, 32).toString('utf8')}...`;
}

interface NumberField {
  /** Keys and indexes from params. */
  readonly at: readonly (string | number)[];
  /** The Go types crossed to reach it, outermost first (the params struct's included). */
  readonly structs: readonly string[];
  readonly type: GoNumberType;
}

const TRACE_METADATA: readonly [string, GoNumberType][] = [
  ['total_tokens', 'int'],
  ['cost_usd', 'float64'],
  ['latency_ms', 'int'],
  ['aggregate_tokens', 'int'],
  ['aggregate_cost_usd', 'float64'],
  ['aggregate_latency_ms', 'int'],
  ['agent_count', 'int'],
];

/** The params struct each method decodes into (pkg/types/protocol.go). */
const PARAMS_STRUCT = {
  initialize: 'types.InitializeParams',
  evaluate_batch: 'types.EvaluateBatchParams',
  validate_trace_tree: 'types.ValidateTraceTreeParams',
  submit_plugin_result: 'types.SubmitPluginResultParams',
  query_drift: 'types.QueryDriftParams',
  generate_user_message: 'types.GenerateUserMessageParams',
} as const;
export type DecodedMethod = keyof typeof PARAMS_STRUCT;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every member of `params` the Attest engine decodes as a number, as far as the params have them. */
function numberFields(method: DecodedMethod, params: Record<string, unknown>): NumberField[] {
  const root = PARAMS_STRUCT[method];
  const fields: NumberField[] = [];
  const add = (at: (string | number)[], structs: string[], type: GoNumberType): void => {
    fields.push({ at, structs: [root, ...structs], type });
  };
  const trace = (node: unknown, at: (string | number)[], structs: string[]): void => {
    if (!isObject(node)) return;
    const here = [...structs, 'types.Trace'];
    add([...at, 'schema_version'], here, 'int');
    for (const [key, type] of TRACE_METADATA)
      add([...at, 'metadata', key], [...here, 'types.TraceMetadata'], type);
    if (!Array.isArray(node.steps)) return;
    (node.steps as unknown[]).forEach((step, index) => {
      if (!isObject(step)) return;
      const inStep = [...here, '[]types.Step', 'types.Step'];
      for (const key of ['started_at_ms', 'ended_at_ms']) add([...at, 'steps', index, key], inStep, 'int64');
      trace(step.sub_trace, [...at, 'steps', index, 'sub_trace'], inStep);
    });
  };
  switch (method) {
    case 'initialize':
      add(['protocol_version'], [], 'int');
      break;
    case 'evaluate_batch':
    case 'validate_trace_tree':
      trace(params.trace, ['trace'], []);
      break;
    case 'submit_plugin_result':
      add(['result', 'score'], ['types.PluginResult'], 'float64');
      break;
    case 'query_drift':
      add(['window_size'], [], 'int');
      break;
    case 'generate_user_message':
      add(['persona', 'temperature'], ['types.SimulatePersona'], 'float64');
      add(['persona', 'max_tokens'], ['types.SimulatePersona'], 'int');
      add(['fault_config', 'error_rate'], ['types.SimulateFaultConfig'], 'float64');
      add(['fault_config', 'latency_jitter_ms'], ['types.SimulateFaultConfig'], 'int');
      add(['fault_config', 'timeout_after_ms'], ['types.SimulateFaultConfig'], 'int');
      break;
  }
  return fields;
}

function valueAt(root: unknown, at: readonly (string | number)[]): unknown {
  return at.reduce<unknown>(
    (parent, key) =>
      typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[key] : undefined,
    root,
  );
}

/**
 * Reads every number `params` holds where the Attest engine decodes one, as it does: the first
 * that does not decode there (in the line's order) is returned as Go's error text; every int that
 * decodes is set to the value it reads as (a wrapped one included). Members whose name was
 * case-folded are not found in the line, and are left as JSON.parse read them.
 */
export function goDecodeNumbers(
  method: DecodedMethod,
  params: Record<string, unknown>,
  text: string,
): string | undefined {
  const line = {};
  rememberSource(line, text, ['params']);
  const paramsEnd = sourceSpan(line, [])?.end ?? text.length;
  let first: { start: number; error: string } | undefined;
  for (const { at, structs, type } of numberFields(method, params)) {
    const parent = valueAt(params, at.slice(0, -1));
    const key = at.at(-1) as string;
    if (!isObject(parent) || typeof parent[key] !== 'number') continue;
    const span = sourceSpan(line, at);
    if (span === undefined) continue;
    const token = text.slice(span.start, span.end);
    const rest = text.slice(span.start, paramsEnd);
    let value: string | undefined;
    if (type === 'float64') {
      if (!Number.isFinite(parent[key])) value = goQuote(goPrefix(rest));
    } else {
      const reading = goParseInt64(token);
      if (reading.ok) parent[key] = Number(reading.value);
      else
        value =
          reading.problem === 'fraction' ? goQuote(goPrefix(token)) : `number ${goPrefix(rest)} overflows`;
    }
    if (value === undefined || (first !== undefined && first.start < span.start)) continue;
    const field = at.join('.');
    first = {
      start: span.start,
      error: `json: cannot unmarshal ${value} into Go struct field ${structs.join('')}.${field} of type ${type}`,
    };
  }
  return first?.error;
}

/**
 * The int64 a trace member holds as the Attest engine reads it (root: the trace; `at` from it), from
 * the line's text where the trace was read from one; else from its value.
 */
export function goIntOf(value: number, root: object | undefined, at: readonly (string | number)[]): bigint {
  const token = root === undefined ? undefined : sourceText(root, at);
  const reading = token === undefined ? undefined : goParseInt64(token);
  return reading?.ok === true ? reading.value : BigInt(Math.trunc(value));
}
