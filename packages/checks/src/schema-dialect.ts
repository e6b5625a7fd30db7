// JSON Schema as the Attest engine reads a schema assertion's schema (santhosh-tekuri/jsonschema v6,
// schema.go:55-60: NewCompiler, no options): the draft its `$schema` names — draft-04, -06, -07,
// 2019-09, 2020-12 (http or https, an empty fragment or none; draft.go draftFromURL) — and 2020-12
// when it names none (or is not a string). Any other `$schema` is a metaschema that compiler would
// have to load (loader.go getDraft): its only loader reads file URLs, so the schema does not
// compile, in its words. Per draft, what that compiler does differently from Ajv's defaults:
// - draft-04: `id`, boolean exclusiveMaximum/exclusiveMinimum (ajv-draft-04), and no const,
//   contains, propertyNames, if/then/else (compiled from draft-06 and -07 on: objcompiler.go:46-55);
//   draft-06: no if/then/else.
// - before 2019-09, every keyword beside a `$ref` is ignored (objcompiler.go:93-96).
// - before 2019-09, `format` is asserted (objcompiler.go:432-441) with its own checks (format.go);
//   from 2019-09 on it is an annotation.
// - `pattern`, `patternProperties` and the `regex` format are Go regexp (RE2) patterns.
import { createRequire } from 'node:module';
import { isIPv6 } from 'node:net';

import { RE2JS } from 're2js';

import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

export type Draft = 4 | 6 | 7 | 2019 | 2020;

/** The draft of a `$schema` URL the compiler knows (draft.go draftFromURL), else undefined. */
export function draftFromUrl(url: string): Draft | undefined {
  const hash = url.indexOf('#');
  if (hash !== -1 && hash !== url.length - 1) return undefined;
  const bare = (hash === -1 ? url : url.slice(0, hash)).replace(/^https?:\/\//, '');
  const drafts: Readonly<Record<string, Draft>> = {
    'json-schema.org/schema': 2020,
    'json-schema.org/draft/2020-12/schema': 2020,
    'json-schema.org/draft/2019-09/schema': 2019,
    'json-schema.org/draft-07/schema': 7,
    'json-schema.org/draft-06/schema': 6,
    'json-schema.org/draft-04/schema': 4,
  };
  return drafts[bare];
}

/** The metaschemas the compiler carries (its metaschemas/ folder), by path after json-schema.org/. */
const CARRIED_METASCHEMAS: Readonly<Record<string, Draft>> = {
  'draft-04/schema': 4,
  'draft-06/schema': 6,
  'draft-07/schema': 7,
  'draft/2019-09/schema': 2019,
  'draft/2020-12/schema': 2020,
};

/** The folders of the metaschemas it carries. */
const CARRIED_FOLDERS: readonly string[] = [
  'draft-04',
  'draft-06',
  'draft-07',
  'draft',
  'draft/2019-09',
  'draft/2019-09/meta',
  'draft/2020-12',
  'draft/2020-12/meta',
];

/**
 * The draft a schema is read in, or why it does not compile (loader.go getDraft, LoadURLError:
 * `failing loading "<url>": invalid file url: <url>`).
 */
export function schemaDraft(schema: unknown): { readonly draft: Draft } | { readonly error: string } {
  const named =
    typeof schema === 'object' && schema !== null && !Array.isArray(schema)
      ? (schema as Record<string, unknown>).$schema
      : undefined;
  if (typeof named !== 'string') return { draft: 2020 };
  const known = draftFromUrl(named);
  if (known !== undefined) return { draft: known };
  const url = named.split('#')[0] ?? '';
  // A carried metaschema named with a fragment is loaded, and its own $schema names its draft.
  const carried = /^https?:\/\/json-schema\.org\/(.*)$/.exec(url)?.[1];
  if (carried !== undefined) {
    const draft = carried === 'schema' ? 2020 : CARRIED_METASCHEMAS[carried];
    if (draft !== undefined) return { draft };
    // A folder of its metaschemas opens (embed.FS), and reading it fails (loader.go openMeta,
    // loadMeta): `…/draft/2020-12`, a spelling seen in the wild, does not compile there.
    if (CARRIED_FOLDERS.includes(carried)) return { error: `read metaschemas/${carried}: is a directory` };
  }
  return { error: `failing loading ${JSON.stringify(url)}: invalid file url: ${url}` };
}

const require = createRequire(import.meta.url);
const validators = new Map<Draft, Ajv2020>();

/**
 * Go regexp (RE2) for pattern and patternProperties, as the compiler's goRegexpCompile. Ajv keys
 * the patterns it has compiled by `regExp(pattern).toString()`: each compiled one names its own
 * pattern there (a plain object's "[object Object]" made every pattern of an Ajv the first it saw).
 */
const re2RegExp = Object.assign(
  (pattern: string): { test: (text: string) => boolean; toString: () => string } => {
    const compiled = RE2JS.compile(pattern);
    return {
      test: (text: string) => compiled.matcher(text).find(),
      toString: () => `re2:${JSON.stringify(pattern)}`,
    };
  },
  { code: 're2RegExp' },
);

/** An Ajv for schemas of `draft`, configured as the Attest engine's compiler reads that draft. */
export function ajvForDraft(draft: Draft): Ajv2020 {
  let ajv = validators.get(draft);
  if (ajv !== undefined) return ajv;
  const asserted = draft < 2019;
  const options = {
    strict: false,
    allErrors: true,
    addUsedSchema: false,
    validateFormats: asserted,
    logger: false as const,
    code: { regExp: re2RegExp },
  };
  if (draft === 2020) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof AjvModule;
    ajv = new Ajv(options);
  } else {
    const module = draft === 4 ? 'ajv-draft-04' : draft === 2019 ? 'ajv/dist/2019.js' : 'ajv/dist/ajv.js';
    const Ajv = require(module) as { default: new (opts: typeof options) => Ajv2020 };
    ajv = new Ajv.default(options);
  }
  if (draft === 6) ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  const absent =
    draft === 4
      ? ['const', 'contains', 'propertyNames', 'if', 'then', 'else']
      : draft === 6
        ? ['if', 'then', 'else']
        : [];
  for (const keyword of absent) ajv.removeKeyword(keyword);
  if (asserted) for (const [name, check] of Object.entries(GO_FORMATS)) ajv.addFormat(name, check);
  validators.set(draft, ajv);
  return ajv;
}

/** Where drafts before 2019-09 hold subschemas (draft.go subschemas). */
const SUBSCHEMA_MAPS = ['definitions', 'properties', 'patternProperties', 'dependencies'];
const SUBSCHEMA_ONE = ['not', 'additionalProperties', 'additionalItems', 'propertyNames', 'contains'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];

/**
 * A schema of a draft before 2019-09 with every keyword beside a `$ref` left out, as the compiler
 * ignores them there (`definitions` stays, so the references still resolve).
 */
export function withoutRefSiblings(schema: unknown, draft: Draft): unknown {
  if (draft >= 2019 || typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string') {
    return {
      $ref: node.$ref,
      ...(node.definitions === undefined ? {} : { definitions: mapValues(node.definitions, draft) }),
    };
  }
  const out: Record<string, unknown> = { ...node };
  for (const key of SUBSCHEMA_MAPS) if (key in node) out[key] = mapValues(node[key], draft);
  for (const key of [...SUBSCHEMA_ONE, ...(draft >= 7 ? ['if', 'then', 'else'] : [])])
    if (key in node) out[key] = withoutRefSiblings(node[key], draft);
  for (const key of SUBSCHEMA_LISTS)
    if (Array.isArray(node[key]))
      out[key] = (node[key] as unknown[]).map((item) => withoutRefSiblings(item, draft));
  if ('items' in node)
    out.items = Array.isArray(node.items)
      ? node.items.map((item: unknown) => withoutRefSiblings(item, draft))
      : withoutRefSiblings(node.items, draft);
  return out;
}

function mapValues(value: unknown, draft: Draft): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, member]) => [
      key,
      withoutRefSiblings(member, draft),
    ]),
  );
}

export type { ValidateFunction };

// --- The compiler's formats (format.go), asserted before 2019-09. Each checks strings only. ---

/** Go's strconv.Atoi on the digits a format reads: an optional sign, then decimal digits. */
const goAtoi = (text: string): number | undefined => (/^[+-]?\d+$/.test(text) ? Number(text) : undefined);

function isUuid(text: string): boolean {
  const groups = text.split('-');
  const lengths = [8, 4, 4, 4, 12];
  return (
    groups.length === 5 &&
    groups.every((group, index) => new RegExp(`^[0-9a-fA-F]{${lengths[index]}}$`).test(group))
  );
}

function isIpv4(text: string): boolean {
  const groups = text.split('.');
  if (groups.length !== 4) return false;
  return groups.every((group) => {
    if (group.length > 1 && group.startsWith('0')) return false;
    const value = goAtoi(group);
    return value !== undefined && value >= 0 && value <= 255;
  });
}

/** netip.ParseAddr of an address with a colon and no zone (Node's parser: the same addresses). */
const isIpv6 = (text: string): boolean => text.includes(':') && !text.includes('%') && isIPv6(text);

function isHostname(text: string): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (Buffer.byteLength(name) > 253) return false;
  return name
    .split('.')
    .every((label) => /^[a-zA-Z0-9-]{1,63}$/.test(label) && !label.startsWith('-') && !label.endsWith('-'));
}

function isEmail(text: string): boolean {
  if (Buffer.byteLength(text) > 254) return false;
  const at = text.lastIndexOf('@');
  if (at === -1) return false;
  const local = text.slice(0, at);
  let domain = text.slice(at + 1);
  if (Buffer.byteLength(local) > 64) return false;
  if (local.length > 1 && local.startsWith('"')) {
    // The compiler checks only that it starts with a quote (format.go: HasPrefix twice).
    if (/[\\"]/.test(local.slice(1, -1))) return false;
  } else if (
    local.startsWith('.') ||
    local.endsWith('.') ||
    local.includes('..') ||
    !/^[a-zA-Z0-9.!#$%&'*+\-/=?^_`{|}~]*$/.test(local)
  ) {
    return false;
  }
  if (domain.startsWith('[') && domain.endsWith(']')) {
    domain = domain.slice(1, -1);
    return domain.startsWith('IPv6:') ? isIpv6(domain.slice(5)) : isIpv4(domain);
  }
  return isHostname(domain);
}

/** time.Parse("2006-01-02", text). */
function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

function isTime(text: string): boolean {
  if (Buffer.byteLength(text) < 9 || text[2] !== ':' || text[5] !== ':') return false;
  const parts = text.slice(0, 8).split(':').map(goAtoi);
  if (parts.some((part) => part === undefined || part < 0)) return false;
  let [hour = 0, minute = 0] = parts as number[];
  const second = parts[2] ?? 0;
  if (hour > 23 || minute > 59 || second > 60) return false;
  let rest = text.slice(8);
  if (rest.startsWith('.')) {
    const digits = /^\d*/.exec(rest.slice(1))?.[0].length ?? 0;
    if (digits === 0) return false;
    rest = rest.slice(1 + digits);
  }
  if (rest !== 'z' && rest !== 'Z') {
    if (rest.length !== 6 || (rest[0] !== '+' && rest[0] !== '-') || rest[3] !== ':') return false;
    const sign = rest[0] === '+' ? -1 : 1;
    const [zoneHour, zoneMinute] = rest.slice(1).split(':').map(goAtoi);
    if (zoneHour === undefined || zoneMinute === undefined || zoneHour < 0 || zoneMinute < 0) return false;
    if (zoneHour > 23 || zoneMinute > 59) return false;
    let minutes = hour * 60 + minute + sign * (zoneHour * 60 + zoneMinute);
    if (minutes < 0) minutes += 24 * 60;
    [hour, minute] = [Math.floor(minutes / 60), minutes % 60];
  }
  return second < 60 || (hour === 23 && minute === 59);
}

function isDateTime(text: string): boolean {
  if (Buffer.byteLength(text) < 20 || (text[10] !== 't' && text[10] !== 'T')) return false;
  return isDate(text.slice(0, 10)) && isTime(text.slice(11));
}

function isJsonPointer(text: string): boolean {
  if (text === '') return true;
  if (!text.startsWith('/')) return false;
  return text
    .split('/')
    .slice(1)
    .every((token) => !/~(?![01])/.test(token) && !token.includes('\u002f'));
}

function isRegex(text: string): boolean {
  try {
    RE2JS.compile(text);
    return true;
  } catch {
    return false;
  }
}

const GO_FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  uuid: isUuid,
  ipv4: isIpv4,
  ipv6: isIpv6,
  hostname: isHostname,
  email: isEmail,
  date: isDate,
  time: isTime,
  'date-time': isDateTime,
  'json-pointer': isJsonPointer,
  regex: isRegex,
};
