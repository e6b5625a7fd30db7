// The consumer probe: the script Evals writes into the isolated consumer and runs with `node`, and
// the shape of the one JSON report it prints. The probe only observes — which entry points load
// and what they export, what undeclared subpaths do, the package's documents, its parser's
// verdict on its own seeded fixture, the conformance report — and every judgement is made by
// Evals on the report. The package is named by the input (argv[2]), never written here as an
// import specifier: Evals' own code never imports the runner package. The package cannot steer the
// probe: it runs under node --frozen-intrinsics, uses the globals as they were before the package
// loaded, reports every watched global the package replaced, and signs its report with the nonce
// Evals sent on its stdin (see README "The probe").
import { createSchemaAjv } from '@paperclip-evals/contract';

import type { QualificationIssue } from './record.js';

export const PROBE_REPORT_V1 = 'paperclip-evals/qualification-probe/v1';
export const PROBE_FILE_NAME = 'probe.mjs';

/** What Evals hands the probe (as JSON in argv[2]). */
export interface ProbeInput {
  readonly packageName: string;
  /** Subpaths (without a leading `./`) the exports map does not declare; each must be refused. */
  readonly undeclaredSubpaths: readonly string[];
}

export interface ProbeError {
  readonly name: string;
  readonly code: string | null;
  readonly message: string;
}

/** A value read from the package, as it survived a JSON round trip, or why it could not be read. */
export type Captured =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ProbeError };

export interface ProbeExport {
  readonly name: string;
  /** typeof, with 'null' and 'array' told apart. */
  readonly type: string;
  /** Names exported by ./testing whose value is this very object (root entry point only). */
  readonly sameAsTesting: readonly string[];
}

export type ProbeEntryPoint =
  | { readonly loaded: true; readonly exports: readonly ProbeExport[] }
  | { readonly loaded: false; readonly error: ProbeError };

export type ProbeVerdict =
  | {
      readonly ran: true;
      readonly valid: boolean;
      readonly code: string | null;
      readonly issueCodes: readonly string[];
    }
  | { readonly ran: false; readonly error: ProbeError };

export interface ProbeUndeclared {
  readonly specifier: string;
  /** The import error's code; null when the import succeeded. */
  readonly code: string | null;
  readonly message: string;
}

export interface ProbeBrokenVariant {
  readonly name: string;
  readonly bundle: Record<string, unknown>;
  readonly verdict: ProbeVerdict;
}

export interface ProbeReport {
  readonly schema: typeof PROBE_REPORT_V1;
  /** The nonce Evals sent on the probe's stdin: a report without it was not written by the probe. */
  readonly nonce: string;
  readonly node: string;
  /** Whether the built-ins were frozen before the package loaded (node --frozen-intrinsics). */
  readonly intrinsicsFrozen: boolean;
  /** Watched globals (globalThis.X, process.stdout.write, ...) the package replaced. */
  readonly tampered: readonly string[];
  readonly entryPoints: {
    readonly '.': ProbeEntryPoint;
    readonly './evals': ProbeEntryPoint;
    readonly './testing': ProbeEntryPoint;
  };
  readonly evals: {
    readonly buildMetadata: Captured;
    /** CAPABILITY_SEMANTIC_TOOL_CATALOG. */
    readonly semanticCatalog: Captured;
    /** canonicalCapabilitySemanticCatalog(): the text the digest is taken over. */
    readonly semanticCatalogText: Captured;
    /** PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256. */
    readonly semanticCatalogSha256: Captured;
    /** await loadPaperclipNativeExecutionFixture(). */
    readonly fixture: Captured;
    readonly packageVerdict: ProbeVerdict;
    /** Broken copies of the fixture and the package parser's verdict on each. */
    readonly brokenVariants: readonly ProbeBrokenVariant[];
  } | null;
  readonly conformance: Captured | null;
  readonly undeclared: readonly ProbeUndeclared[];
  readonly unhandledRejections: readonly ProbeError[];
}

/**
 * Globals the probe snapshots before the package loads and compares after: every standard
 * ECMAScript global (their own properties are frozen by --frozen-intrinsics, but the bindings on
 * globalThis are not) and the Node globals a package could swap to change what code sees.
 */
export const WATCHED_GLOBALS: readonly string[] = [
  'globalThis',
  'Object',
  'Function',
  'Array',
  'Number',
  'Boolean',
  'String',
  'Symbol',
  'BigInt',
  'Math',
  'JSON',
  'Reflect',
  'Proxy',
  'Promise',
  'Date',
  'RegExp',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'FinalizationRegistry',
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Atomics',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'Intl',
  'eval',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
  'process',
  'Buffer',
  'console',
  'queueMicrotask',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'structuredClone',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'EventTarget',
  'Event',
];

/**
 * The probe (plain ESM for Node 20). Anything the package writes to stdout is sent to stderr, so
 * stdout carries exactly one JSON object; unhandled rejections are reported, not fatal.
 */
export const PROBE_SOURCE = `// Written by @paperclip-evals/qualification into an isolated consumer: imports the runner package's
// public entry points (named by argv[2]) and prints one JSON report on stdout. It judges nothing.
// It runs under node --frozen-intrinsics, so the package cannot change a built-in (Object.keys,
// JSON.stringify, Array.prototype.includes, ...). Before the package loads it reads the nonce Evals
// sent on stdin (to its end: the package cannot read it again), shadows every global it uses with
// the value found now, disables process.binding (the way to Node's internals), and snapshots the
// globals a package could still rebind; after the package ran, each one that changed is reported.
import { readFileSync, writeSync } from 'node:fs';
import { Buffer } from 'node:buffer';

const realm = globalThis;
const { Array, Atomics, Int32Array, JSON, Object, Reflect, SharedArrayBuffer, String, TypeError, process } = realm;
const nonce = readFileSync(0, 'utf8').trim();
const intrinsicsFrozen = [Object, Object.prototype, Array.prototype, Function.prototype, JSON, Reflect, String.prototype, Promise.prototype].every((value) => Object.isFrozen(value));
Object.defineProperty(process, 'binding', {
  value: () => {
    throw new Error('process.binding is disabled in the qualification probe');
  },
  writable: false,
  configurable: false,
  enumerable: false,
});
// What the package could still swap after loading: the standard globals and the process functions the probe relies on.
const WATCHED_GLOBALS = ${JSON.stringify(WATCHED_GLOBALS)};
const watched = () => [
  ...WATCHED_GLOBALS.map((name) => ['globalThis.' + name, realm[name]]),
  ['process.stdout.write', process.stdout.write],
  ['process.stderr.write', process.stderr.write],
  ['process.exit', process.exit],
  ['process.on', process.on],
  ['process.binding', process.binding],
];
const exit = process.exit.bind(process);
// Chatter the package prints goes to stderr; stdout carries only the report (written with writeSync).
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
const before = watched();
function writeAll(text) {
  const bytes = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let offset = 0; offset < bytes.length; ) {
    try {
      offset += writeSync(1, bytes, offset, bytes.length - offset);
    } catch (error) {
      if (error === null || typeof error !== 'object' || error.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
const unhandledRejections = [];
process.on('unhandledRejection', (reason) => unhandledRejections.push(describe(reason)));

function describe(error) {
  const name = error !== null && typeof error === 'object' && typeof error.name === 'string' ? error.name : typeof error;
  const code = error !== null && typeof error === 'object' && typeof error.code === 'string' ? error.code : null;
  const message = error !== null && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);
  return { name, code, message: message.slice(0, 4000) };
}
const typeOf = (value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const jsonCopy = (value) => {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('not JSON-serialisable (' + typeOf(value) + ')');
  return JSON.parse(text);
};
async function capture(get) {
  try {
    return { ok: true, value: jsonCopy(await get()) };
  } catch (error) {
    return { ok: false, error: describe(error) };
  }
}
async function load(specifier) {
  try {
    return { module: await import(specifier) };
  } catch (error) {
    return { error: describe(error) };
  }
}
function summary(loaded, testingEntries) {
  if (loaded.module === undefined) return { loaded: false, error: loaded.error };
  const exports = Object.keys(loaded.module).sort().map((name) => {
    let value;
    try {
      value = loaded.module[name];
    } catch (error) {
      return { name, type: 'unreadable', sameAsTesting: [] };
    }
    const isObject = typeof value === 'function' || (typeof value === 'object' && value !== null);
    const sameAsTesting = isObject
      ? testingEntries.filter(([, other]) => other === value).map(([other]) => other).sort()
      : [];
    return { name, type: typeOf(value), sameAsTesting };
  });
  return { loaded: true, exports };
}

const input = JSON.parse(process.argv[2]);
const root = await load(input.packageName);
const evals = await load(input.packageName + '/evals');
const testing = await load(input.packageName + '/testing');
const testingEntries = testing.module === undefined ? [] : Object.keys(testing.module).map((name) => {
  try {
    return [name, testing.module[name]];
  } catch {
    return [name, undefined];
  }
});

let evalsReport = null;
if (evals.module !== undefined) {
  const m = evals.module;
  let fixtureValue;
  let fixtureError = null;
  try {
    fixtureValue = await m.loadPaperclipNativeExecutionFixture();
  } catch (error) {
    fixtureError = describe(error);
  }
  const fixture = fixtureError === null ? await capture(() => fixtureValue) : { ok: false, error: fixtureError };
  const verdictOf = async (value) => {
    try {
      await m.parsePaperclipNativeExecution(value);
      return { ran: true, valid: true, code: null, issueCodes: [] };
    } catch (error) {
      if (error !== null && typeof error === 'object' && error.code === 'paperclip_native_execution_invalid') {
        const issues = Array.isArray(error.issues) ? error.issues : [];
        return { ran: true, valid: false, code: error.code, issueCodes: issues.map((issue) => String(issue && issue.code)) };
      }
      return { ran: false, error: describe(error) };
    }
  };
  let packageVerdict;
  const brokenVariants = [];
  if (fixtureError !== null) packageVerdict = { ran: false, error: fixtureError };
  else {
    packageVerdict = await verdictOf(fixtureValue);
    // Broken copies of the fixture (Evals checks its own parser refuses each one it is sent back).
    const mutations = [
      ['usage-total-tokens-off-by-one', (bundle) => {
        if (typeof bundle.usage !== 'object' || bundle.usage === null || typeof bundle.usage.totalTokens !== 'number') return false;
        bundle.usage.totalTokens += 1;
        return true;
      }],
      ['run-terminal-event-removed', (bundle) => {
        if (!Array.isArray(bundle.events)) return false;
        const before = bundle.events.length;
        bundle.events = bundle.events.filter((event) => !(event !== null && typeof event === 'object' && event.eventType === 'run.terminal'));
        return bundle.events.length < before;
      }],
      ['denial-removed', (bundle) => {
        const denials = typeof bundle.semanticTools === 'object' && bundle.semanticTools !== null ? bundle.semanticTools.denials : undefined;
        if (!Array.isArray(denials) || denials.length === 0) return false;
        denials.pop();
        return true;
      }],
    ];
    for (const [name, mutate] of mutations) {
      let variant;
      let sent;
      try {
        variant = jsonCopy(fixtureValue);
        if (variant === null || typeof variant !== 'object' || Array.isArray(variant) || !mutate(variant)) continue;
        sent = jsonCopy(variant);
      } catch {
        continue;
      }
      brokenVariants.push({ name, bundle: variant, verdict: await verdictOf(sent) });
    }
  }
  evalsReport = {
    buildMetadata: await capture(() => m.PAPERCLIP_RUNNER_BUILD_METADATA),
    semanticCatalog: await capture(() => m.CAPABILITY_SEMANTIC_TOOL_CATALOG),
    semanticCatalogText: await capture(() => m.canonicalCapabilitySemanticCatalog()),
    semanticCatalogSha256: await capture(() => m.PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256),
    fixture,
    packageVerdict,
    brokenVariants,
  };
}

let conformance = null;
if (testing.module !== undefined) {
  const t = testing.module;
  conformance = await capture(() => t.runHarnessDriverConformance({ driver: new t.DeterministicHarnessDriver() }));
}

const undeclared = [];
for (const subpath of input.undeclaredSubpaths) {
  const specifier = input.packageName + '/' + subpath;
  try {
    await import(specifier);
    undeclared.push({ specifier, code: null, message: 'loaded' });
  } catch (error) {
    const described = describe(error);
    undeclared.push({ specifier, code: described.code, message: described.message });
  }
}

const after = watched();
const tampered = before
  .filter(([name, value], index) => after[index][0] !== name || after[index][1] !== value)
  .map(([name]) => name);

const report = {
  schema: ${JSON.stringify(PROBE_REPORT_V1)},
  nonce,
  node: process.version,
  intrinsicsFrozen,
  tampered,
  entryPoints: {
    '.': summary(root, testingEntries),
    './evals': summary(evals, []),
    './testing': summary(testing, []),
  },
  evals: evalsReport,
  conformance,
  undeclared,
  unhandledRejections,
};
writeAll(JSON.stringify(report) + '\\n');
exit(0);
`;

const ERROR = {
  type: 'object',
  required: ['name', 'code', 'message'],
  properties: {
    name: { type: 'string' },
    code: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    message: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const CAPTURED = {
  oneOf: [
    {
      type: 'object',
      required: ['ok', 'value'],
      properties: { ok: { const: true }, value: true },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['ok', 'error'],
      properties: { ok: { const: false }, error: ERROR },
      additionalProperties: false,
    },
  ],
} as const;

const ENTRY_POINT = {
  oneOf: [
    {
      type: 'object',
      required: ['loaded', 'exports'],
      properties: {
        loaded: { const: true },
        exports: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'type', 'sameAsTesting'],
            properties: {
              name: { type: 'string' },
              type: { type: 'string' },
              sameAsTesting: { type: 'array', items: { type: 'string' } },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['loaded', 'error'],
      properties: { loaded: { const: false }, error: ERROR },
      additionalProperties: false,
    },
  ],
} as const;

const VERDICT = {
  oneOf: [
    {
      type: 'object',
      required: ['ran', 'valid', 'code', 'issueCodes'],
      properties: {
        ran: { const: true },
        valid: { type: 'boolean' },
        code: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        issueCodes: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['ran', 'error'],
      properties: { ran: { const: false }, error: ERROR },
      additionalProperties: false,
    },
  ],
} as const;

/** The probe report's JSON Schema (compiled by the contract's strict Ajv). */
export const PROBE_REPORT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: [
    'schema',
    'nonce',
    'node',
    'intrinsicsFrozen',
    'tampered',
    'entryPoints',
    'evals',
    'conformance',
    'undeclared',
    'unhandledRejections',
  ],
  properties: {
    schema: { const: PROBE_REPORT_V1 },
    nonce: { type: 'string' },
    node: { type: 'string' },
    intrinsicsFrozen: { type: 'boolean' },
    tampered: { type: 'array', items: { type: 'string' } },
    entryPoints: {
      type: 'object',
      required: ['.', './evals', './testing'],
      properties: { '.': ENTRY_POINT, './evals': ENTRY_POINT, './testing': ENTRY_POINT },
      additionalProperties: false,
    },
    evals: {
      oneOf: [
        {
          type: 'object',
          required: [
            'buildMetadata',
            'semanticCatalog',
            'semanticCatalogText',
            'semanticCatalogSha256',
            'fixture',
            'packageVerdict',
            'brokenVariants',
          ],
          properties: {
            buildMetadata: CAPTURED,
            semanticCatalog: CAPTURED,
            semanticCatalogText: CAPTURED,
            semanticCatalogSha256: CAPTURED,
            fixture: CAPTURED,
            packageVerdict: VERDICT,
            brokenVariants: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'bundle', 'verdict'],
                properties: { name: { type: 'string' }, bundle: { type: 'object' }, verdict: VERDICT },
                additionalProperties: false,
              },
            },
          },
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
    conformance: { oneOf: [CAPTURED, { type: 'null' }] },
    undeclared: {
      type: 'array',
      items: {
        type: 'object',
        required: ['specifier', 'code', 'message'],
        properties: {
          specifier: { type: 'string' },
          code: { oneOf: [{ type: 'string' }, { type: 'null' }] },
          message: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    unhandledRejections: { type: 'array', items: ERROR },
  },
  additionalProperties: false,
} as const;

let probeValidator: ReturnType<ReturnType<typeof createSchemaAjv>['compile']> | undefined;

/** Every way `value` is not a probe report ([] when it is one). */
export function probeReportIssues(value: unknown): QualificationIssue[] {
  probeValidator ??= createSchemaAjv().compile(PROBE_REPORT_SCHEMA);
  if (probeValidator(value) === true) return [];
  return (probeValidator.errors ?? [])
    .filter((error) => error.keyword !== 'oneOf' || (probeValidator?.errors ?? []).length === 1)
    .map((error) => ({
      code: 'probe_report_invalid',
      message: `probe report ${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message ?? 'is invalid'}`,
      path: error.instancePath,
      expected: error.keyword,
      received: error.params,
    }));
}

/** Narrowing after probeReportIssues returned []. */
export function isProbeReport(value: unknown): value is ProbeReport {
  return probeReportIssues(value).length === 0;
}
