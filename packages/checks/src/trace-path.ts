// The small path language assertions use to point into a trace: `output.message`,
// `metadata.cost_usd`, `steps.length`, `steps[?type=='tool_call'].length`,
// `steps[?name=='lookup_order'].result.status`, `steps[0].args`.
//
// A filter `[?key=='value']` keeps the array elements whose key equals value. Followed by `.length`
// it counts them; followed by anything else (or nothing) it continues on the first match.
import { ChecksError } from './errors.js';

export type PathSegment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'filter'; readonly key: string; readonly value: string };

/** A path the language does not read (ChecksError trace_path_invalid), saying where it stops making sense. */
function pathError(message: string): ChecksError {
  return new ChecksError('trace_path_invalid', message);
}

const SEGMENT =
  /^(?:\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d{1,9})\]|\[\?([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(?:'([^']*)'|"([^"]*)")\])/;

/** Parses a path, or throws ChecksError trace_path_invalid saying where it stops making sense. */
export function parseTracePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let rest = path;
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    // A dot must separate keys, and the path must not start with one.
    if (match === null || (match[1] !== undefined && rest.startsWith('.') === (segments.length === 0))) {
      throw pathError(`unsupported path ${JSON.stringify(path)} at ${JSON.stringify(rest)}`);
    }
    const [text, key, index, filterKey, single, double] = match;
    if (key !== undefined) segments.push({ kind: 'key', key });
    else if (index !== undefined) segments.push({ kind: 'index', index: Number(index) });
    else segments.push({ kind: 'filter', key: filterKey ?? '', value: single ?? double ?? '' });
    rest = rest.slice(text.length);
  }
  if (segments.length === 0) throw pathError('empty path');
  return segments;
}

/** The path as text again (parseTracePath(formatTracePath(s)) equals s). */
export function formatTracePath(segments: readonly PathSegment[]): string {
  return segments
    .map((segment, position) => {
      if (segment.kind === 'key') return position === 0 ? segment.key : `.${segment.key}`;
      if (segment.kind === 'index') return `[${segment.index}]`;
      const quote = segment.value.includes("'") ? '"' : "'";
      return `[?${segment.key}==${quote}${segment.value}${quote}]`;
    })
    .join('');
}

export type PathLookup =
  | {
      readonly found: true;
      readonly value: unknown;
      /** Where the value is: the keys and array indexes walked from the root (a filter's match as its index). */
      readonly at: readonly (string | number)[];
    }
  | { readonly found: false };

/**
 * The value a parsed path points at in `root`, or found: false. Never throws. With `plainKeys`,
 * `length` is a key like any other (an assertion target, as the peer engine reads one).
 */
export function resolveTracePath(
  root: unknown,
  segments: readonly PathSegment[],
  options: { readonly plainKeys?: boolean } = {},
): PathLookup {
  let value: unknown = root;
  const at: (string | number)[] = [];
  for (let position = 0; position < segments.length; position++) {
    const segment = segments[position];
    if (segment === undefined) break;
    if (segment.kind === 'key') {
      if (
        options.plainKeys !== true &&
        (Array.isArray(value) || typeof value === 'string') &&
        segment.key === 'length'
      ) {
        value = value.length;
      } else if (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.hasOwn(value, segment.key)
      ) {
        value = (value as Record<string, unknown>)[segment.key];
        at.push(segment.key);
      } else {
        return { found: false };
      }
    } else if (segment.kind === 'index') {
      if (!Array.isArray(value) || segment.index >= value.length) return { found: false };
      value = value[segment.index] as unknown;
      at.push(segment.index);
    } else {
      if (!Array.isArray(value)) return { found: false };
      const matches = (value as unknown[]).flatMap(
        (element: unknown, index): { element: unknown; index: number }[] => {
          if (typeof element !== 'object' || element === null) return [];
          const field = (element as Record<string, unknown>)[segment.key];
          const comparable =
            typeof field === 'string' || typeof field === 'number' || typeof field === 'boolean';
          return comparable && String(field) === segment.value ? [{ element, index }] : [];
        },
      );
      const next = segments[position + 1];
      if (next?.kind === 'key' && next.key === 'length') {
        value = matches.length;
        position++;
      } else {
        const [first] = matches;
        if (first === undefined) return { found: false };
        value = first.element;
        at.push(first.index);
      }
    }
  }
  return { found: true, value, at };
}
