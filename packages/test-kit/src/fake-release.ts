// Test support: FAKE runner release directories shaped exactly like upstream's, built in a temp dir
// by the test setup. The fake package is a few hand-written ESM files (not our reference runner)
// exporting upstream's names from upstream's paths (exports with `types` + `import`, `./testing` at
// dist/testing.js re-exporting the root, protocol/schemas/native-execution.schema.json and the two
// protocol/fixtures/evals/ files), implementing them minimally (a canned passing conformance report
// of upstream's shape, a parser that throws upstream's error with a `path`, a catalog that is a list
// of descriptors digested over its sorted-key JSON) with zero dependencies, so the offline install
// needs nothing from the store. Its bin paperclip-runner-eval-session (dist/cli/eval-session.js)
// runs an eval session: it re-hashes the runnerd the request names and writes an eval-session
// artifact and its native-execution bundle, made from a repo fixture with the request's ids and
// runnerd's digest, and the files the bundle references; with `sessionCounter` it appends a line to
// that file each time it starts. runnerd is a Node script (`#!` + the absolute path of this node, as
// it runs with an empty environment) that prints upstream's build metadata fields and nothing more;
// `runnerdKind` swaps in a `#!/bin/sh` script printing the same, or makes the bin write a bad
// artifact file or hang; `evalSessionBin: false` leaves the bin out. The App record is upstream's
// clean-consumer-conformance/v1 record naming the tarball and runnerd by digest and size, with
// artifacts.runnerd.buildProfile. The
// tarball is crafted header by header with tar's Header class, so tests can add entries no packer
// would write (`../x`, absolute paths, links out).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { canonicalDigest } from '@paperclip-evals/contract';
import { Header } from 'tar';

import { REPO_ROOT } from './repo.ts';

import type { types } from 'tar';

type EntryTypeName = types.EntryTypeName;

export const FAKE_VERSION = '0.4.0';
export const RUNNERD_NAME = `paperclip-runnerd-${process.platform}-${process.arch}`;
export const TARBALL_NAME = `paperclipai-paperclip-runner-${FAKE_VERSION}.tgz`;
export const APP_RECORD_NAME = 'paperclip-runner-consumer-conformance.json';

/** A valid native-execution/v1 bundle with a denial, from the repo's fixtures: the fake's seeded fixture. */
export const SEEDED_FIXTURE: unknown = JSON.parse(
  readFileSync(join(REPO_ROOT, 'fixtures/attempts/valid/denied-tool-call.json'), 'utf8'),
);

/** Upstream's catalog shape: a list of semantic tool descriptors. */
export const SEMANTIC_CATALOG = [
  {
    schema: 'paperclip.semantic-tool.v1',
    operationId: 'read_document',
    version: 1,
    title: 'Read task document',
    description: 'Read the current revision of one active-task document.',
    exposure: 'always',
    requiredClaims: [],
    allowedModes: ['standard'],
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    outputSchema: { type: 'object', additionalProperties: true },
  },
  {
    schema: 'paperclip.semantic-tool.v1',
    operationId: 'decide_approval',
    version: 1,
    title: 'Decide approval',
    description: 'Decide an approval as an explicitly authorized approver.',
    exposure: 'optional',
    requiredClaims: ['governance:approvals:decide'],
    allowedModes: ['standard'],
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    outputSchema: { type: 'object', additionalProperties: true },
  },
];

/** The digest of an older catalog (what a release whose catalog changed without its metadata states). */
export const STALE_CATALOG_DIGEST = canonicalDigest(SEMANTIC_CATALOG.slice(0, 1));

export interface FakeReleaseOptions {
  /** The package's PRP range (default 1..1). */
  readonly prp?: { readonly minimumVersion: number; readonly maximumVersion: number };
  /** The App record's artifacts.runnerd.buildProfile; null states none (default 'release'). */
  readonly runnerdBuildProfile?: 'release' | 'debug' | null;
  /** The metadata and PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 state STALE_CATALOG_DIGEST. */
  readonly staleCatalogDigest?: boolean;
  /** The driver descriptor's protocolVersion (default prp.v1). */
  readonly driverProtocolVersion?: string;
  /** A file runnerd appends a line to whenever it runs anything but --build-metadata. */
  readonly sessionCounter?: string;
  /**
   * A file each of the release's programs appends a line to when it runs: "package loaded" (the
   * root entry point, whenever it is imported), "runnerd <args>" (the Node runnerd, any args),
   * "eval-session" (the bin): a test reads what ran from an unverified file.
   */
  readonly marker?: string;
  /** Fields runnerd prints beside upstream's in its build metadata (e.g. a self-declared buildProfile). */
  readonly runnerdExtraMetadata?: Readonly<Record<string, unknown>>;
  /** runnerd's PRP range (default 1..1). */
  readonly runnerdPrp?: { readonly minimumVersion: number; readonly maximumVersion: number };
  /**
   * `eval-session` (default): a Node runnerd printing its metadata; `metadata-only`: a small
   * `#!/bin/sh` script printing the same; `bad-artifact`: the bin writes one artifact file whose
   * bytes differ from the digest the bundle states; `hangs`: the bin's eval session never ends.
   */
  readonly runnerdKind?: 'eval-session' | 'metadata-only' | 'bad-artifact' | 'hangs';
  /** false: the package ships no paperclip-runner-eval-session bin (default: it does). */
  readonly evalSessionBin?: false;
  /**
   * The bin is upstream's, as far as Evals can tell (upstreamEvalSessionBinScript): upstream's
   * argument rules, its request parser's rules in its order (its five live providers only; any
   * other is "eval-session provider is unsupported by CapabilityLiveSessionService", exit 1, nothing
   * written), its runnerd re-hash, its main-module guard, and no live provider (a request it accepts
   * fails as a session with no credentials does: the failure artifact, exit 2). package.json lists
   * upstream's four bins (the three proxies are stubs).
   */
  readonly upstreamEvalSession?: boolean;
  /** Edits the App record (a clean-consumer-conformance/v1 object) before it is written; may return a replacement. */
  readonly appRecord?: (record: Record<string, unknown>) => unknown;
  /** The root entry point re-exports ./testing's DeterministicHarnessDriver. */
  readonly leakTestDouble?: boolean;
  /**
   * The version package.json states (default FAKE_VERSION, the build metadata's): upstream's says
   * 0.0.0 while its build metadata, runnerd and gate record state its compatibility constant.
   */
  readonly packageJsonVersion?: string;
  /** Extra tar entries, after the package's own. */
  readonly extraEntries?: readonly CraftEntry[];
  /** Files SHA256SUMS leaves out. */
  readonly omitFromSums?: readonly string[];
  /** Changes one byte of runnerd after SHA256SUMS was written. */
  readonly corruptRunnerd?: boolean;
  /** Files written after SHA256SUMS (so unlisted). */
  readonly unlistedFiles?: Readonly<Record<string, string>>;
  /** Edits of the package's files (path under package/ → new content) before packing. */
  readonly editFiles?: (files: Record<string, string>) => void;
  /** Zero bytes after the end-of-archive marker (padding no packer writes this much of). */
  readonly trailingZeroBytes?: number;
}

export interface CraftEntry {
  readonly path: string;
  readonly type?: EntryTypeName;
  readonly body?: string | Buffer;
  readonly linkpath?: string;
  readonly mode?: number;
}

/**
 * A gzip'd tar of exactly these entries, headers written by tar's Header (ustar, no pax), the
 * end-of-archive marker, then `trailingZeroBytes` zero bytes.
 */
export function craftTarball(entries: readonly CraftEntry[], trailingZeroBytes = 0): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? 'File';
    const body = Buffer.from(entry.body ?? '');
    const header = new Header({
      path: entry.path,
      type,
      mode: entry.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      size: type === 'File' ? body.byteLength : 0,
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      mtime: new Date(0),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.byteLength > 0) {
      blocks.push(body, Buffer.alloc((512 - (body.byteLength % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024 + trailingZeroBytes));
  return gzipSync(Buffer.concat(blocks));
}

/** The catalog digest the package states. */
const statedCatalogDigest = (options: FakeReleaseOptions): string =>
  options.staleCatalogDigest === true ? STALE_CATALOG_DIGEST : canonicalDigest(SEMANTIC_CATALOG);

/** Upstream's PAPERCLIP_RUNNER_BUILD_METADATA fields. */
export function packageBuildMetadata(options: FakeReleaseOptions = {}): Record<string, unknown> {
  return {
    schema: 'paperclip-runner/build-metadata/v1',
    package: { name: '@paperclipai/paperclip-runner', version: FAKE_VERSION },
    contracts: {
      evalIntegration: 1,
      nativeExecution: 1,
      runnerdArtifact: 2,
      prp: 1,
      semanticCatalog: 1,
      harnessDriver: 1,
      controlPlaneAdapter: 1,
      testkit: 1,
    },
    prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1, ...options.prp },
    semanticCatalog: { version: 1, sha256: statedCatalogDigest(options) },
    runnerd: {
      binaryName: 'paperclip-runnerd',
      metadataSchema: 'paperclip-runner/runnerd-build-metadata/v1',
      digestAlgorithm: 'sha256',
    },
  };
}

/** What upstream's runnerd prints for --build-metadata (a newer build: with prpTransportModes), nothing more. */
export function runnerdBuildMetadata(
  prp: { readonly minimumVersion: number; readonly maximumVersion: number } = {
    minimumVersion: 1,
    maximumVersion: 1,
  },
): Record<string, unknown> {
  return {
    schema: 'paperclip-runner/runnerd-build-metadata/v1',
    binaryName: 'paperclip-runnerd',
    packageName: '@paperclipai/paperclip-runner',
    packageVersion: FAKE_VERSION,
    binaryContractVersion: 2,
    nativeExecutionVersion: 1,
    harnessDriverVersion: 1,
    prp: { name: 'paperclip.runner', ...prp },
    prpTransportModes: ['dial_ws_loopback', 'dial_wss', 'listen_ws'],
  };
}

/** The harness-driver capabilities, in upstream's descriptor order. */
const CAPABILITIES = [
  'resume',
  'typedEvents',
  'steering',
  'interruption',
  'structuredResult',
  'read',
  'reconciliation',
  'usage',
  'dynamicTools',
  'runtimeRequestResolution',
  'goals',
  'threadLineage',
] as const;

/** What upstream's deterministic driver does not support: every other capability it has. */
const UNSUPPORTED: readonly string[] = ['steering', 'runtimeRequestResolution', 'goals', 'threadLineage'];

/** Upstream's deterministic driver descriptor: each capability true but the unsupported ones, which it lists. */
const descriptor = (options: FakeReleaseOptions): Record<string, unknown> => ({
  kind: 'paperclip-deterministic',
  displayName: 'Paperclip deterministic harness driver',
  version: '1.0.0',
  protocolVersion: options.driverProtocolVersion ?? 'prp.v1',
  capabilities: {
    ...Object.fromEntries(CAPABILITIES.map((name) => [name, !UNSUPPORTED.includes(name)])),
    unsupported: UNSUPPORTED,
  },
});

/** A harness-driver-conformance-fixture/v1 with upstream's field names. */
const CONFORMANCE_FIXTURE = {
  schema: 'paperclip-runner/harness-driver-conformance-fixture/v1',
  validConfig: {
    schema: 'paperclip-runner/deterministic-harness-driver-config/v1',
    scenario: 'semantic-tool-success',
  },
  invalidConfig: { schema: 'paperclip-runner/deterministic-harness-driver-config/v1', scenario: 'unknown' },
  completionMessage: 'Run the fake conformance.',
  interruptMessage: '[conformance:interrupt] Stay active.',
  requiredCapabilities: ['resume', 'typedEvents', 'interruption', 'structuredResult'],
  unsupportedFeatures: ['steering'],
};

/** The fake package's files, by path under package/. */
export function fakePackageFiles(options: FakeReleaseOptions = {}): Record<string, string> {
  const manifest = {
    name: '@paperclipai/paperclip-runner',
    version: options.packageJsonVersion ?? FAKE_VERSION,
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './testing': { types: './dist/testing.d.ts', import: './dist/testing.js' },
      './evals': { types: './dist/evals/index.d.ts', import: './dist/evals/index.js' },
    },
    files: ['dist', 'protocol'],
    ...(options.evalSessionBin === false
      ? {}
      : {
          bin: {
            'paperclip-runner-eval-session': './dist/cli/eval-session.js',
            ...(options.upstreamEvalSession === true ? UPSTREAM_PROXY_BINS : {}),
          },
        }),
  };
  const root = [
    '// Fake @paperclipai/paperclip-runner root entry point: contracts only.',
    ...(options.marker === undefined
      ? []
      : [
          "import { appendFileSync } from 'node:fs';",
          `appendFileSync(${JSON.stringify(options.marker)}, 'package loaded\\n');`,
        ]),
    "export const PRP_PROTOCOL_NAME = 'paperclip.runner';",
    "export const NATIVE_EXECUTION_V1 = 'paperclip-runner/native-execution/v1';",
    'export function isTerminalState(value) {',
    "  return ['succeeded', 'failed', 'cancelled'].includes(value);",
    '}',
    ...(options.leakTestDouble === true
      ? ["export { DeterministicHarnessDriver } from './testing.js';"]
      : []),
    '',
  ].join('\n');
  const evals = [
    '// Fake @paperclipai/paperclip-runner/evals: upstream names.',
    "import { createHash } from 'node:crypto';",
    "import { readFile } from 'node:fs/promises';",
    `export const PAPERCLIP_RUNNER_BUILD_METADATA = Object.freeze(${JSON.stringify(packageBuildMetadata(options))});`,
    `export const CAPABILITY_SEMANTIC_TOOL_CATALOG = Object.freeze(${JSON.stringify(SEMANTIC_CATALOG)});`,
    'const canonicalJson = (value) => {',
    "  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';",
    "  if (typeof value === 'object' && value !== null)",
    "    return '{' + Object.keys(value).sort().map((key) => JSON.stringify(key) + ':' + canonicalJson(value[key])).join(',') + '}';",
    "  return JSON.stringify(value) ?? 'null';",
    '};',
    'export function canonicalCapabilitySemanticCatalog() {',
    '  return canonicalJson(CAPABILITY_SEMANTIC_TOOL_CATALOG);',
    '}',
    options.staleCatalogDigest === true
      ? `export const PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 = ${JSON.stringify(STALE_CATALOG_DIGEST)};`
      : "export const PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 = 'sha256:' + createHash('sha256').update(canonicalCapabilitySemanticCatalog()).digest('hex');",
    "export const paperclipNativeExecutionSchemaUrl = new URL('../../protocol/schemas/native-execution.schema.json', import.meta.url);",
    "export const paperclipNativeExecutionFixtureUrl = new URL('../../protocol/fixtures/evals/native-execution-seeded.json', import.meta.url);",
    'export class PaperclipNativeExecutionError extends Error {',
    '  constructor(path, message) {',
    "    super(path + ': ' + message);",
    "    this.name = 'PaperclipNativeExecutionError';",
    "    this.code = 'paperclip_native_execution_invalid';",
    '    this.path = path;',
    '  }',
    '}',
    'export function parsePaperclipNativeExecution(value) {',
    "  if (value === null || typeof value !== 'object' || !(value.schema === NATIVE_EXECUTION_V1))",
    "    throw new PaperclipNativeExecutionError('bundle.schema', 'unsupported schema');",
    '  const usage = value.usage ?? {};',
    '  if (usage.totalTokens !== usage.inputTokens + usage.outputTokens)',
    "    throw new PaperclipNativeExecutionError('bundle.usage.totalTokens', 'must be input + output');",
    "  if (!Array.isArray(value.events) || !value.events.some((event) => event?.eventType === 'run.terminal'))",
    "    throw new PaperclipNativeExecutionError('bundle.events', 'needs one run.terminal');",
    "  const denied = (value.semanticTools?.results ?? []).filter((result) => result?.outcome === 'denied');",
    '  if (denied.length !== (value.semanticTools?.denials ?? []).length)',
    "    throw new PaperclipNativeExecutionError('bundle.semanticTools.denials', 'a denied result needs its denial');",
    '  return value;',
    '}',
    'export async function loadPaperclipNativeExecutionFixture(url = paperclipNativeExecutionFixtureUrl) {',
    "  return parsePaperclipNativeExecution(JSON.parse(await readFile(url, 'utf8')));",
    '}',
    "const NATIVE_EXECUTION_V1 = 'paperclip-runner/native-execution/v1';",
    'export function assertPaperclipRunnerEvalCompatibility() {',
    "  throw new Error('the fake does not negotiate');",
    '}',
    'export async function resolvePaperclipRunnerdArtifact() {',
    "  throw new Error('the fake does not resolve');",
    '}',
    '',
  ].join('\n');
  const testing = [
    '// Fake @paperclipai/paperclip-runner/testing: the root, a driver and a canned passing conformance run.',
    "export * from './index.js';",
    'export class DeterministicHarnessDriver {',
    `  async descriptor() { return ${JSON.stringify(descriptor(options))}; }`,
    '}',
    'export async function runHarnessDriverConformance({ driver }) {',
    "  console.log('conformance: chatter on stdout that the probe must keep out of its report');",
    '  return {',
    "    schema: 'paperclip-runner/harness-driver-conformance-report/v1',",
    '    contractVersion: 1,',
    '    descriptor: await driver.descriptor(),',
    '    checks: {',
    '      capabilityDescription: true,',
    '      configValidation: true,',
    '      sessionLifecycle: true,',
    '      sessionRecovery: true,',
    '      semanticTools: true,',
    '      eventValidation: true,',
    '      interruptAndCancel: true,',
    '      usage: true,',
    '      transcriptCompleteness: true,',
    '      unsupportedFeatures: true,',
    '    },',
    '    eventCount: 7,',
    '    semanticToolCallCount: 1,',
    "    usage: { inputTokens: 12, outputTokens: 8, totalTokens: 20, requestCount: 1, cost: { currency: 'USD', amountMicros: 0 } },",
    '  };',
    '}',
    '',
  ].join('\n');
  return {
    'package/package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'package/dist/index.js': root,
    'package/dist/index.d.ts': 'export declare const PRP_PROTOCOL_NAME: string;\n',
    'package/dist/evals/index.js': evals,
    'package/dist/evals/index.d.ts': 'export declare const PAPERCLIP_RUNNER_BUILD_METADATA: object;\n',
    'package/dist/testing.js': testing,
    'package/dist/testing.d.ts': "export * from './index.js';\n",
    'package/protocol/schemas/native-execution.schema.json': `${JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'paperclip-runner/native-execution/v1',
      type: 'object',
      required: ['schema'],
    })}\n`,
    'package/protocol/fixtures/evals/native-execution-seeded.json': JSON.stringify(SEEDED_FIXTURE),
    'package/protocol/fixtures/evals/harness-driver-conformance.json': `${JSON.stringify(CONFORMANCE_FIXTURE)}\n`,
    ...(options.evalSessionBin === false
      ? {}
      : {
          'package/dist/cli/eval-session.js':
            options.upstreamEvalSession === true
              ? upstreamEvalSessionBinScript(options)
              : evalSessionBinScript(
                  options,
                  options.runnerdKind === 'bad-artifact',
                  options.runnerdKind === 'hangs',
                ),
          ...(options.upstreamEvalSession === true
            ? Object.fromEntries(
                Object.values(UPSTREAM_PROXY_BINS).map((path) => [
                  `package/${path.slice(2)}`,
                  "#!/usr/bin/env node\n// Stub of an upstream proxy bin: Evals never runs it.\nprocess.stderr.write('not in this fake\\n');\nprocess.exitCode = 1;\n",
                ]),
              )
            : {}),
        }),
  };
}

const shQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** Upstream's other three bins (package.json PC@0e23a3a3), beside paperclip-runner-eval-session. */
export const UPSTREAM_PROXY_BINS: Readonly<Record<string, string>> = {
  'paperclip-runner-codex-proxy': './dist/cli/codex-app-server-unix-proxy.js',
  'paperclip-runner-opencode-proxy': './dist/cli/opencode-app-server-proxy.js',
  'paperclip-runner-acpx-sidecar': './dist/cli/acpx-runtime-sidecar.js',
};

/** Upstream's eval-session providers and the driver each implies (eval-session-contract.ts). */
export const UPSTREAM_EVAL_SESSION_DRIVERS: Readonly<Record<string, string>> = {
  codex: 'codex_app_server',
  opencode: 'opencode_server',
  claude_managed: 'claude_managed_agents_api',
  aws_agentcore: 'aws_agentcore_harness_api',
  acpx: 'acpx_runtime',
};

/** What upstream's parser says of a provider outside its list (stderr, exit 1, nothing written). */
export const UPSTREAM_UNSUPPORTED_PROVIDER =
  'eval-session provider is unsupported by CapabilityLiveSessionService';

/**
 * A paperclip-runner-eval-session that behaves as upstream's (src/cli/eval-session.ts and
 * eval-session-contract.ts, PC@1493c578 / PC@dc8a51d5) for what Evals can observe: the argument
 * rules (--request / --output pairs, "unknown argument: X", "missing --X"), the request's rules in
 * upstream's order up to runnerd and limits (a plain Error, first problem wins, on stderr, exit 1,
 * nothing written), the runnerd re-hash (a mismatch: exit 1, nothing written), the main-module guard
 * (it does nothing unless run by its own path), and then a session: with no live provider here, the
 * failure artifact (eval_orchestration_failure, exit 2), as upstream's catch block writes it. With
 * `sessionCounter`, a line once a session starts; with `marker`, "eval-session" at each start.
 */
export function upstreamEvalSessionBinScript(options: FakeReleaseOptions = {}): string {
  return `#!/usr/bin/env node
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
const BUILD = ${JSON.stringify(packageBuildMetadata(options))};
const DRIVERS = ${JSON.stringify(UPSTREAM_EVAL_SESSION_DRIVERS)};
const COUNTER = ${JSON.stringify(options.sessionCounter ?? null)};
const MARKER = ${JSON.stringify(options.marker ?? null)};
function argument(args, name) {
  const index = args.indexOf(name);
  const value = index < 0 ? undefined : args[index + 1];
  if (!value || value.startsWith('--')) throw new Error('missing ' + name);
  return resolve(value);
}
function parseArgs(args) {
  const allowed = new Set(['--request', '--output']);
  for (let index = 0; index < args.length; index += 2) {
    if (!allowed.has(args[index] ?? '')) throw new Error('unknown argument: ' + (args[index] ?? ''));
    if (args[index + 1] === undefined) throw new Error('missing ' + args[index]);
  }
  return { requestPath: argument(args, '--request'), outputPath: argument(args, '--output') };
}
function object(value, path) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(path + ' must be an object');
  return value;
}
function text(value, path) {
  if (typeof value !== 'string' || value.trim().length === 0) throw new Error(path + ' must be a non-empty string');
  return value;
}
function positiveInteger(value, path) {
  if (!Number.isSafeInteger(value) || Number(value) <= 0) throw new Error(path + ' must be a positive safe integer');
  return Number(value);
}
function parseEvalSessionRequest(value) {
  const input = object(value, 'request');
  if (input.schema !== 'paperclip-runner/eval-session-request/v1') throw new Error('unsupported request schema');
  const provider = input.provider ?? 'codex';
  if (!Object.hasOwn(DRIVERS, provider)) throw new Error(${JSON.stringify(UPSTREAM_UNSUPPORTED_PROVIDER)});
  const driver = DRIVERS[provider];
  if (input.driver !== undefined && input.driver !== driver) throw new Error('eval-session provider/driver mismatch');
  if (input.nativeResume !== undefined) throw new Error('eval-session nativeResume requires a retained live-session checkpoint');
  if (input.includeCollaborationModeInstructions === false) throw new Error('current CapabilityLiveSessionService requires collaboration-mode instructions');
  const runnerd = object(input.runnerd, 'request.runnerd');
  const digest = text(runnerd.sha256, 'request.runnerd.sha256');
  if (!/^(?:sha256:)?[a-f0-9]{64}$/i.test(digest)) throw new Error('request.runnerd.sha256 must be a SHA-256 digest');
  const limits = object(input.limits, 'request.limits');
  object(input.session, 'request.session');
  return {
    attemptId: text(input.attemptId, 'request.attemptId'),
    prompt: text(input.prompt, 'request.prompt'),
    model: text(input.model, 'request.model'),
    provider,
    driver,
    runnerd: { path: text(runnerd.path, 'request.runnerd.path'), sha256: digest },
    limits: {
      turnTimeoutMs: positiveInteger(limits.turnTimeoutMs, 'request.limits.turnTimeoutMs'),
      maxAgentTurns: positiveInteger(limits.maxAgentTurns, 'request.limits.maxAgentTurns'),
      maxEstimatedCostNanodollars: positiveInteger(limits.maxEstimatedCostNanodollars, 'request.limits.maxEstimatedCostNanodollars'),
    },
  };
}
async function runEvalSessionCli(args) {
  if (MARKER !== null) appendFileSync(MARKER, 'eval-session\\n');
  const cli = parseArgs(args);
  const request = parseEvalSessionRequest(JSON.parse(await readFile(cli.requestPath, 'utf8')));
  const actual = createHash('sha256').update(await readFile(resolve(request.runnerd.path))).digest('hex');
  if (actual !== request.runnerd.sha256.replace(/^sha256:/, '')) {
    throw new Error('runnerd digest mismatch: expected ' + request.runnerd.sha256 + ', got sha256:' + actual);
  }
  if (COUNTER !== null) appendFileSync(COUNTER, args.join(' ') + '\\n');
  const startedAt = new Date().toISOString();
  const startedAtMs = Date.now();
  // A live provider needs its credentials and the network; this fake has neither, so the session
  // fails as one without them does, and the catch block writes the failure artifact.
  const error = new Error('live provider ' + request.provider + ' is not available in this fake');
  await writeFile(cli.outputPath, JSON.stringify({
    schema: 'paperclip-runner/eval-session-artifact/v1',
    attemptId: request.attemptId,
    infrastructureError: error.message,
    infrastructureFailure: { class: 'eval_orchestration_failure', category: 'eval_orchestration', retryable: false, diagnostics: {} },
    build: BUILD,
    runnerd: { path: '[withheld]', sha256: 'sha256:' + actual },
    requestedModel: request.model,
    provider: request.provider,
    driver: request.driver,
    providerVersion: null,
    providerSessionId: null,
    timing: { startedAt, finishedAt: new Date().toISOString(), durationMs: Date.now() - startedAtMs },
  }, null, 2) + '\\n');
  return 2;
}
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(fileURLToPath(import.meta.url))) {
  void runEvalSessionCli(process.argv.slice(2))
    .then((code) => { process.exitCode = code; })
    .catch((error) => {
      process.stderr.write((error instanceof Error ? error.message : String(error)) + '\\n');
      process.exitCode = 1;
    });
}
`;
}

/** A runnerd that only prints its metadata for --build-metadata (exit 64 otherwise): no eval session. */
export function runnerdScript(prp?: {
  readonly minimumVersion: number;
  readonly maximumVersion: number;
}): string {
  return `#!/bin/sh\n[ "$1" = --build-metadata ] || exit 64\nprintf '%s\\n' ${shQuote(JSON.stringify(runnerdBuildMetadata(prp)))}\n`;
}

/**
 * A runnerd as a Node script: `#!<this node>` (it runs with an empty environment, so no PATH
 * lookup), printing its metadata for --build-metadata (exit 64 otherwise).
 */
export function runnerdNodeScript(
  prp?: {
    readonly minimumVersion: number;
    readonly maximumVersion: number;
  },
  marker?: string,
  extra: Readonly<Record<string, unknown>> = {},
): string {
  return `#!${process.execPath}
'use strict';
const METADATA = ${JSON.stringify({ ...runnerdBuildMetadata(prp), ...extra })};
const args = process.argv.slice(2);
${marker === undefined ? '' : `require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'runnerd ' + args.join(' ') + '\\n');\n`}if (args.length !== 1 || args[0] !== '--build-metadata') process.exit(64);
process.stdout.write(JSON.stringify(METADATA) + '\\n');
// fake paperclip-runnerd
`;
}

/**
 * The fake package's paperclip-runner-eval-session (ESM, run by node): reads the request, re-hashes
 * the runnerd it names (a mismatch: the failure artifact, exit 2), then writes the bundle (the
 * seeded fixture with the request's ids, the package version and runnerd's digest, a direct
 * session's unpriced usage) and its files under <dir of output>/<attemptId>/, and the artifact.
 */
export function evalSessionBinScript(
  options: FakeReleaseOptions,
  badArtifact = false,
  hangs = false,
): string {
  const template = SEEDED_FIXTURE as { identity: Record<string, string> };
  return `#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
const BUILD = ${JSON.stringify(packageBuildMetadata(options))};
const TEMPLATE = ${JSON.stringify(JSON.stringify(SEEDED_FIXTURE))};
const IDS = ${JSON.stringify(template.identity)};
const BAD_ARTIFACT = ${String(badArtifact)};
const sha = (bytes) => 'sha256:' + crypto.createHash('sha256').update(bytes).digest('hex');
const args = process.argv.slice(2);
const COUNTER = ${JSON.stringify(options.sessionCounter ?? null)};
const MARKER = ${JSON.stringify(options.marker ?? null)};
if (MARKER !== null) fs.appendFileSync(MARKER, 'eval-session\\n');
const flags = { [args[0]]: args[1], [args[2]]: args[3] };
if (args.length !== 4 || !flags['--request'] || !flags['--output']) process.exit(1);
const request = JSON.parse(fs.readFileSync(flags['--request'], 'utf8'));
if (request.provider !== 'paperclip_deterministic') {
  process.stderr.write('paperclip-runner-eval-session: invalid eval-session request: /provider unknown provider ' + JSON.stringify(request.provider) + '\\n');
  process.exit(1);
}
if (COUNTER !== null) fs.appendFileSync(COUNTER, args.join(' ') + '\\n');
if (${String(hangs)}) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
const startedAt = new Date().toISOString();
const observed = sha(fs.readFileSync(path.resolve(request.runnerd.path)));
const common = {
  schema: 'paperclip-runner/eval-session-artifact/v1',
  attemptId: request.attemptId,
  build: BUILD,
  runnerd: { path: '[withheld]', sha256: observed },
  requestedModel: request.model,
  provider: 'paperclip_deterministic',
  driver: 'paperclip_deterministic_harness',
  providerVersion: '1.0.0',
};
const timing = () => ({ startedAt, finishedAt: new Date().toISOString(), durationMs: 0 });
if (observed !== request.runnerd.sha256) {
  fs.writeFileSync(flags['--output'], JSON.stringify({ ...common, infrastructureError: 'runnerd digest mismatch', infrastructureFailure: { class: 'eval_orchestration_failure', category: 'eval_orchestration', retryable: false, diagnostics: {} }, providerSessionId: null, timing: timing() }, null, 2) + '\\n');
  process.exit(2);
}
const ids = { runId: request.session.runId, caseId: request.evalCase.caseId, configId: request.evalCase.configId };
let text = TEMPLATE;
for (const key of ['runId', 'caseId', 'configId']) text = text.split(JSON.stringify(IDS[key])).join(JSON.stringify(ids[key]));
text = text.split(IDS.attemptId).join(request.attemptId);
const bundle = JSON.parse(text);
bundle.input.caseSha256 = request.evalCase.caseSha256;
bundle.input.configSha256 = request.evalCase.configSha256;
bundle.runner.package.version = ${JSON.stringify(FAKE_VERSION)};
bundle.runner.binary.sha256 = observed;
const { cost: _cost, providerReportedCostNanodollars: _p, providerReportedCostProvenance: _pp, estimatedCostNanodollars: _e, pricingVersion: _v, costCoverage: _c, legacyLedgerCostNanodollars: _l, ...tokens } = bundle.usage;
bundle.usage = { ...tokens, cost: null, providerReportedCostNanodollars: null, providerReportedCostProvenance: 'unavailable', estimatedCostNanodollars: null, costCoverage: 'unpriced', legacyLedgerCostNanodollars: null };
const outputDir = path.dirname(flags['--output']);
const dir = path.join(outputDir, request.attemptId);
fs.mkdirSync(dir, { recursive: true });
const prefix = 'artifact://native/' + request.attemptId + '/';
const ref = (name, mediaType, content) => {
  const bytes = Buffer.from(content, 'utf8');
  fs.writeFileSync(path.join(dir, name), BAD_ARTIFACT && name !== 'transcript.jsonl' && name !== 'artifact-root.json' ? content + ' ' : bytes);
  return { uri: prefix + name, sha256: sha(bytes), byteSize: bytes.length, mediaType };
};
bundle.transcript = { ...bundle.transcript, ...ref('transcript.jsonl', 'application/x-ndjson', bundle.events.map((event) => JSON.stringify(event) + '\\n').join('')) };
bundle.artifacts = bundle.artifacts.map((artifact, index) => ref('artifact-' + index + '.json', artifact.mediaType, JSON.stringify({ index }) + '\\n'));
const root = ref('artifact-root.json', bundle.artifactRoot.mediaType, JSON.stringify({ transcript: bundle.transcript, artifacts: bundle.artifacts }) + '\\n');
bundle.artifactRoot = { ...root, uri: prefix };
const bundleBytes = Buffer.from(JSON.stringify(bundle, null, 2) + '\\n', 'utf8');
fs.writeFileSync(path.join(dir, 'native-execution.json'), bundleBytes);
fs.writeFileSync(flags['--output'], JSON.stringify({
  ...common,
  providerSessionId: 'session_' + request.attemptId,
  turn: { turnId: 'turn_1', status: 'completed', assistantText: '' },
  snapshot: { usageLedger: [] },
  usage: { agentTurns: 1, providerRequests: tokens.requestCount, inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens, cachedInputTokens: 0, reasoningTokens: 0, providerReportedCostNanodollars: null, providerReportedCostProvenance: 'unavailable', estimatedCostNanodollars: null, pricingVersion: null, ratesUsdPerMillionTokens: null, costCoverage: 'unpriced', legacyLedgerCostNanodollars: null },
  timing: timing(),
  nativeExecution: { path: request.attemptId + '/native-execution.json', sha256: sha(bundleBytes), byteSize: bundleBytes.length },
}, null, 2) + '\\n');
`;
}

/** Writes the fake's bin (as evalSessionBinScript or upstreamEvalSessionBinScript makes it, then `edit`) into `dir`, an ESM folder; returns its path. */
export async function writeFakeEvalSessionBin(
  dir: string,
  options: FakeReleaseOptions = {},
  edit: (script: string) => string = (script) => script,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  const bin = join(dir, 'eval-session.js');
  await writeFile(
    bin,
    edit(
      options.upstreamEvalSession === true
        ? upstreamEvalSessionBinScript(options)
        : evalSessionBinScript(
            options,
            options.runnerdKind === 'bad-artifact',
            options.runnerdKind === 'hangs',
          ),
    ),
  );
  return bin;
}

const sha256Hex = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export interface FakeRelease {
  readonly dir: string;
  readonly tarball: string;
  readonly runnerd: string;
}

/** Writes a release directory into `dir` (created; must not exist). */
export async function buildFakeRelease(dir: string, options: FakeReleaseOptions = {}): Promise<FakeRelease> {
  await mkdir(dir, { recursive: true });
  const files = fakePackageFiles(options);
  options.editFiles?.(files);
  const entries: CraftEntry[] = [
    ...Object.entries(files).map(([path, body]) => ({ path, body })),
    ...(options.extraEntries ?? []),
  ];
  const tarball = join(dir, TARBALL_NAME);
  await writeFile(tarball, craftTarball(entries, options.trailingZeroBytes));
  const runnerd = join(dir, RUNNERD_NAME);
  const profile = options.runnerdBuildProfile === undefined ? 'release' : options.runnerdBuildProfile;
  const kind = options.runnerdKind ?? 'eval-session';
  await writeFile(
    runnerd,
    kind === 'metadata-only'
      ? runnerdScript(options.runnerdPrp)
      : runnerdNodeScript(options.runnerdPrp, options.marker, options.runnerdExtraMetadata),
  );
  await chmod(runnerd, 0o755);
  const facts = async (path: string): Promise<{ sha256: string; byteSize: number }> => {
    const bytes = await readFile(path);
    return { sha256: `sha256:${sha256Hex(bytes)}`, byteSize: bytes.byteLength };
  };
  const appRecord: Record<string, unknown> = {
    schema: 'paperclip-runner/clean-consumer-conformance/v1',
    recordedAt: '2026-12-01T00:00:00.000Z',
    sourceCommit: 'a'.repeat(40),
    platform: { os: process.platform, arch: process.arch },
    artifacts: {
      package: { filename: TARBALL_NAME, ...(await facts(tarball)) },
      runnerd: {
        filename: RUNNERD_NAME,
        ...(await facts(runnerd)),
        ...(profile === null ? {} : { buildProfile: profile }),
      },
    },
    consumer: {
      installMode: 'offline-packed-artifact',
      imports: [
        '@paperclipai/paperclip-runner',
        '@paperclipai/paperclip-runner/evals',
        '@paperclipai/paperclip-runner/testing',
      ],
      appSourceTreeImports: false,
      providerCalls: 0,
    },
    checks: {
      packageExportsResolved: true,
      nativeExecutionFixture: {
        schema: 'paperclip-runner/native-execution/v1',
        rejectedToolEffectPreserved: true,
      },
      evalCompatibility: {
        schema: 'paperclip-runner/evals-integration/v1',
        consumer: 'paperclip-runner-clean-consumer',
        packageVersion: FAKE_VERSION,
        runnerdPackageVersion: FAKE_VERSION,
        negotiatedPrpVersion: 1,
        catalogSha256: canonicalDigest(SEMANTIC_CATALOG),
        driverKind: 'paperclip-deterministic',
        driverVersion: '1.0.0',
      },
      evalMismatchFailedClosed: true,
      runnerdDigest: true,
    },
  };
  const edited = options.appRecord?.(appRecord) ?? appRecord;
  await writeFile(
    join(dir, APP_RECORD_NAME),
    typeof edited === 'string' ? edited : `${JSON.stringify(edited, null, 2)}\n`,
  );
  const listed = [TARBALL_NAME, RUNNERD_NAME, APP_RECORD_NAME].filter(
    (name) => !(options.omitFromSums ?? []).includes(name),
  );
  const sums: string[] = [];
  for (const name of listed) sums.push(`${sha256Hex(await readFile(join(dir, name)))}  ${name}\n`);
  await writeFile(join(dir, 'SHA256SUMS'), sums.join(''));
  if (options.corruptRunnerd === true) {
    const bytes = await readFile(runnerd);
    const at = bytes.lastIndexOf('fake paperclip-runnerd');
    bytes[at] = 'F'.charCodeAt(0); // still a valid script; no longer the bytes SHA256SUMS lists
    await writeFile(runnerd, bytes);
  }
  for (const [name, content] of Object.entries(options.unlistedFiles ?? {}))
    await writeFile(join(dir, name), content);
  return { dir, tarball, runnerd };
}
