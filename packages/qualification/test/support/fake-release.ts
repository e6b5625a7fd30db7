// Test support: FAKE runner release directories, built in a temp dir by the test setup. The fake
// package is a few hand-written ESM files implementing the documented API minimally (a canned
// passing conformance report, a parser that checks the schema name and three invariants) with zero
// dependencies, so the offline install needs nothing from the store; runnerd is a Node script
// (`#!` + the absolute path of this node, as it runs with an empty environment) that prints build
// metadata and runs `eval-session`: it writes a valid bundle, made from a repo fixture with the
// request's ids and its own file's digest, and the files the bundle references. `runnerdKind`
// swaps in a `#!/bin/sh` script that only prints metadata, or one that writes a bad artifact. The
// App record is a consumer-conformance/v1 record naming the tarball and runnerd digests. The
// tarball is crafted header by header with tar's Header class, so tests can add entries no packer
// would write (`../x`, absolute paths, links out).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { canonicalDigest } from '@paperclip-evals/contract';
import { Header } from 'tar';

import type { types } from 'tar';

type EntryTypeName = types.EntryTypeName;

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FAKE_VERSION = '0.4.0';
export const RUNNERD_NAME = `paperclip-runnerd-${process.platform}-${process.arch}`;
export const TARBALL_NAME = `paperclipai-paperclip-runner-${FAKE_VERSION}.tgz`;
export const APP_RECORD_NAME = 'paperclip-runner-consumer-conformance.json';

/** A valid native-execution/v1 bundle with a denial, from the repo's fixtures: the fake's seeded fixture. */
export const SEEDED_FIXTURE: unknown = JSON.parse(
  readFileSync(join(REPO_ROOT, 'fixtures/attempts/valid/denied-tool-call.json'), 'utf8'),
);

export const SEMANTIC_CATALOG = {
  version: 1,
  tools: [
    { name: 'read_file', effect: 'read' },
    { name: 'write_file', effect: 'write' },
  ],
};

export interface FakeReleaseOptions {
  /** The package's PRP range (default 1..1). */
  readonly prp?: { readonly minimumVersion: number; readonly maximumVersion: number };
  /** runnerd's build profile; null prints none (default 'release'). */
  readonly runnerdProfile?: 'release' | 'debug' | null;
  /** runnerd's PRP range (default 1..1). */
  readonly runnerdPrp?: { readonly minimumVersion: number; readonly maximumVersion: number };
  /**
   * `eval-session` (default): a Node runnerd that runs eval sessions; `metadata-only`: a small
   * `#!/bin/sh` script that only prints `--build-metadata`; `bad-artifact`: the Node runnerd, but one
   * artifact's bytes differ from the digest the bundle states; `hangs`: the Node runnerd, but its
   * eval session never ends.
   */
  readonly runnerdKind?: 'eval-session' | 'metadata-only' | 'bad-artifact' | 'hangs';
  /** Edits the App record (a consumer-conformance/v1 object) before it is written; may return a replacement. */
  readonly appRecord?: (record: Record<string, unknown>) => unknown;
  /** The root entry point re-exports ./testing's DeterministicHarnessDriver. */
  readonly leakTestDouble?: boolean;
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

export function packageBuildMetadata(options: FakeReleaseOptions = {}): Record<string, unknown> {
  return {
    schema: 'paperclip-runner/build-metadata/v1',
    package: { name: '@paperclipai/paperclip-runner', version: FAKE_VERSION },
    contracts: { nativeExecution: 1, runnerdArtifact: 2, harnessDriver: 1, semanticCatalog: 1 },
    prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1, ...options.prp },
    semanticCatalog: { version: 1, sha256: canonicalDigest(SEMANTIC_CATALOG) },
    runnerd: {
      binaryName: 'paperclip-runnerd',
      metadataSchema: 'paperclip-runner/runnerd-build-metadata/v1',
      digestAlgorithm: 'sha256',
    },
  };
}

export function runnerdBuildMetadata(
  profile: 'release' | 'debug' | null = 'release',
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
    prpTransportModes: ['dial_ws_loopback'],
    ...(profile === null ? {} : { buildProfile: profile }),
  };
}

const DESCRIPTOR = {
  kind: 'deterministic',
  version: FAKE_VERSION,
  protocolVersion: 'prp.v1',
  capabilities: {
    steer: true,
    interrupt: true,
    resume: true,
    runtimeRequests: true,
    structuredResult: true,
    typedEvents: true,
  },
};

/** The fake package's files, by path under package/. */
export function fakePackageFiles(options: FakeReleaseOptions = {}): Record<string, string> {
  const manifest = {
    name: '@paperclipai/paperclip-runner',
    version: FAKE_VERSION,
    type: 'module',
    exports: {
      '.': './dist/index.js',
      './evals': './dist/evals/index.js',
      './testing': './dist/testing/index.js',
      './package.json': './package.json',
    },
  };
  const root = [
    '// Fake @paperclipai/paperclip-runner root entry point: contracts only.',
    "export const PRP_PROTOCOL_NAME = 'paperclip.runner';",
    "export const NATIVE_EXECUTION_V1 = 'paperclip-runner/native-execution/v1';",
    'export function isTerminalState(value) {',
    "  return ['succeeded', 'failed', 'cancelled'].includes(value);",
    '}',
    ...(options.leakTestDouble === true
      ? ["export { DeterministicHarnessDriver } from './testing/index.js';"]
      : []),
    '',
  ].join('\n');
  const evals = [
    '// Fake @paperclipai/paperclip-runner/evals.',
    "import { readFileSync } from 'node:fs';",
    `export const PAPERCLIP_RUNNER_BUILD_METADATA = Object.freeze(${JSON.stringify(packageBuildMetadata(options))});`,
    `export const SEMANTIC_CATALOG = ${JSON.stringify(SEMANTIC_CATALOG)};`,
    `export const SEMANTIC_CATALOG_SHA256 = ${JSON.stringify(canonicalDigest(SEMANTIC_CATALOG))};`,
    "export const NATIVE_EXECUTION_SCHEMA = { $id: 'https://paperclip.dev/schemas/runner/native-execution/v1.json', type: 'object' };",
    'export function loadSeededNativeExecutionFixture() {',
    "  return JSON.parse(readFileSync(new URL('../../fixtures/seeded.json', import.meta.url), 'utf8'));",
    '}',
    'export function parseNativeExecution(value) {',
    '  const issues = [];',
    "  if (value === null || typeof value !== 'object' || !(value.schema === NATIVE_EXECUTION_V1)) {",
    "    issues.push({ code: 'native_schema_unknown', path: '/schema' });",
    '  } else {',
    '    const usage = value.usage ?? {};',
    '    if (usage.totalTokens !== usage.inputTokens + usage.outputTokens)',
    "      issues.push({ code: 'usage_total_mismatch', path: '/usage/totalTokens' });",
    "    if (!Array.isArray(value.events) || !value.events.some((event) => event?.eventType === 'run.terminal'))",
    "      issues.push({ code: 'terminal_event_missing', path: '/events' });",
    "    const denied = (value.semanticTools?.results ?? []).filter((result) => result?.outcome === 'denied');",
    '    if (denied.length !== (value.semanticTools?.denials ?? []).length)',
    "      issues.push({ code: 'denial_missing', path: '/semanticTools/denials' });",
    '  }',
    '  if (issues.length === 0) return value;',
    "  const error = new Error('invalid native execution');",
    "  error.code = 'paperclip_native_execution_invalid';",
    '  error.issues = issues;',
    '  throw error;',
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
    '// Fake @paperclipai/paperclip-runner/testing: a driver and a canned passing conformance run.',
    'export class DeterministicHarnessDriver {',
    `  descriptor = ${JSON.stringify(DESCRIPTOR)};`,
    '}',
    'export async function runHarnessDriverConformance({ driver }) {',
    "  console.log('conformance: chatter on stdout that the probe must keep out of its report');",
    '  return {',
    "    schema: 'paperclip-runner/harness-driver-conformance/v1',",
    '    passed: true,',
    '    contractVersion: 1,',
    '    descriptor: driver.descriptor,',
    '    checks: { startsAndCompletes: true, interrupts: true, resumes: true, emitsTypedEvents: true },',
    '    semanticToolCallCount: 2,',
    '  };',
    '}',
    '',
  ].join('\n');
  return {
    'package/package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'package/dist/index.js': root,
    'package/dist/evals/index.js': evals,
    'package/dist/testing/index.js': testing,
    'package/fixtures/seeded.json': JSON.stringify(SEEDED_FIXTURE),
  };
}

const shQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A runnerd that only prints its metadata for --build-metadata (exit 64 otherwise): no eval session. */
export function runnerdScript(
  profile: 'release' | 'debug' | null = 'release',
  prp?: { readonly minimumVersion: number; readonly maximumVersion: number },
): string {
  return `#!/bin/sh\n[ "$1" = --build-metadata ] || exit 64\nprintf '%s\\n' ${shQuote(JSON.stringify(runnerdBuildMetadata(profile, prp)))}\n`;
}

/**
 * A runnerd that runs eval sessions: `#!<this node>` (it runs with an empty environment, so no
 * PATH lookup), printing its metadata for --build-metadata and, for `eval-session --request R
 * --output O`, writing a valid bundle to O (the seeded fixture with the request's ids, the package
 * version and the sha256 of this very file) and the files it references under <dir of O>/<attemptId>/.
 */
export function runnerdNodeScript(
  profile: 'release' | 'debug' | null = 'release',
  prp?: { readonly minimumVersion: number; readonly maximumVersion: number },
  badArtifact = false,
  hangs = false,
): string {
  const template = SEEDED_FIXTURE as { identity: Record<string, string> };
  const body = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const METADATA = ${JSON.stringify(runnerdBuildMetadata(profile, prp))};
const TEMPLATE = ${JSON.stringify(JSON.stringify(SEEDED_FIXTURE))};
const IDS = ${JSON.stringify(template.identity)};
const BAD_ARTIFACT = ${String(badArtifact)};
const sha = (bytes) => 'sha256:' + crypto.createHash('sha256').update(bytes).digest('hex');
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--build-metadata') {
  process.stdout.write(JSON.stringify(METADATA) + '\\n');
  process.exit(0);
}
if (args[0] !== 'eval-session' || args.length !== 5) process.exit(64);
if (${String(hangs)}) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
const flags = { [args[1]]: args[2], [args[3]]: args[4] };
const request = JSON.parse(fs.readFileSync(flags['--request'], 'utf8'));
let text = TEMPLATE;
for (const key of ['runId', 'caseId', 'configId']) text = text.split(JSON.stringify(IDS[key])).join(JSON.stringify(request[key]));
text = text.split(IDS.attemptId).join(request.attemptId);
const bundle = JSON.parse(text);
bundle.runner.package.version = ${JSON.stringify(FAKE_VERSION)};
bundle.runner.binary.sha256 = sha(fs.readFileSync(process.argv[1]));
const dir = path.join(path.dirname(flags['--output']), request.attemptId);
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
fs.writeFileSync(flags['--output'], JSON.stringify(bundle, null, 2) + '\\n');
process.stdout.write(JSON.stringify({ bundle: flags['--output'] }) + '\\n');
// fake paperclip-runnerd, ${profile ?? 'unstated'} build
`;
  return `#!${process.execPath}\n${body}`;
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
  const profile = options.runnerdProfile === undefined ? 'release' : options.runnerdProfile;
  const kind = options.runnerdKind ?? 'eval-session';
  await writeFile(
    runnerd,
    kind === 'metadata-only'
      ? runnerdScript(profile, options.runnerdPrp)
      : runnerdNodeScript(profile, options.runnerdPrp, kind === 'bad-artifact', kind === 'hangs'),
  );
  await chmod(runnerd, 0o755);
  const appRecord: Record<string, unknown> = {
    schema: 'paperclip-runner/consumer-conformance/v1',
    passed: true,
    package: { name: '@paperclipai/paperclip-runner', version: FAKE_VERSION },
    tarball: { fileName: TARBALL_NAME, sha256: `sha256:${sha256Hex(await readFile(tarball))}` },
    runnerd: { fileName: RUNNERD_NAME, sha256: `sha256:${sha256Hex(await readFile(runnerd))}` },
    checks: [
      { id: 'install', passed: true, detail: 'installed offline' },
      { id: 'entry-points', passed: true, detail: 'the entry points load' },
    ],
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
    const at = bytes.lastIndexOf('release');
    bytes[at] = 'R'.charCodeAt(0); // still a valid script; no longer the bytes SHA256SUMS lists
    await writeFile(runnerd, bytes);
  }
  for (const [name, content] of Object.entries(options.unlistedFiles ?? {}))
    await writeFile(join(dir, name), content);
  return { dir, tarball, runnerd };
}
