// Every JSON the CLI prints has a schema under schemas/, and holds to it: each `--json` command of
// the real CLI (bin/evals.js, built) runs over success and failure cases — fixture attempts valid
// and invalid, a store ingested here, a fake runnerd, the real and a broken policy producer — and
// each stdout is validated against its schema through the one schema registry (the first run of
// each command, and every policy replay, is the binary; the later ones run its program in this
// process: support/evals-in-process.ts, which collects stdout the same). Then mutation rows:
// each schema refuses a plausible wrong output (a missing member, a wrong enum, an extra member),
// so none of them can pass everything.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openStore } from '@paperclip-evals/evalbook';

import { createProgram } from '../src/program.ts';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import {
  GOOD_METADATA,
  createTestExecutables,
  printingScript,
  writeExecutable,
} from '@paperclip-evals/test-kit/test-executables';
import { writeBundles } from '@paperclip-evals/test-kit/bundle-files';
import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';
import { brokenProducer, realProducer } from '@paperclip-evals/test-kit/producers';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { writeNegotiationDocuments } from './support/negotiation-documents.ts';
import { firstRunSpawned } from './support/evals-in-process.ts';

import type { EvalsRun } from './support/evals-in-process.ts';

import type { TestExecutable, TestExecutables } from '@paperclip-evals/test-kit/test-executables';
import type { Executable } from '@paperclip-evals/test-kit/producers';

const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;
/** Each output's `schema` member → its JSON Schema. */
const SCHEMA_OF: Readonly<Record<string, string>> = {
  'paperclip-evals/validate-report/v1': SCHEMA('validate-report'),
  'paperclip-evals/ingest-report/v1': SCHEMA('ingest-report'),
  'paperclip-evals/runs/v1': SCHEMA('runs'),
  'paperclip-evals/migrate/v1': SCHEMA('migrate'),
  'paperclip-evals/retraction-report/v1': SCHEMA('retraction-report'),
  'paperclip-evals/report/v1': SCHEMA('report'),
  'paperclip-evals/grid/v1': SCHEMA('grid'),
  'paperclip-evals/compare/v1': SCHEMA('compare'),
  'paperclip-evals/policy-replay/v1': SCHEMA('policy-replay'),
  'evals-qualification/v1': SCHEMA('qualification-record'),
  'paperclip-evals/publish/v1': SCHEMA('publish'),
  'paperclip-evals/site-verification/v1': SCHEMA('site-verification'),
  'paperclip-evals/campaign-plan/v1': SCHEMA('campaign-plan'),
};
const FAILURE = SCHEMA('cli-failure');

const ATTEMPTS = join(REPO_ROOT, 'fixtures/attempts');
let dir = '';
let store = '';
let executables: TestExecutables;
/** A runnerd that speaks PRP 1..2, as the negotiation documents ask. */
let runnerdV2: TestExecutable;
let producer: Executable;
let dropsReply: Executable;
let bundlePath = '';
let refusedRelease = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-json-schemas-'));
  store = `sqlite:${join(dir, 'evalbook.sqlite')}`;
  await mkdir(join(dir, 'executables'));
  executables = await createTestExecutables(join(dir, 'executables'));
  producer = await realProducer(dir);
  dropsReply = await brokenProducer(dir, 'drops_a_reply');
  bundlePath = join(dir, 'policy.json');
  await writeFile(bundlePath, `${JSON.stringify(bundleOf(denyApprovals), null, 2)}\n`);
  writeNegotiationDocuments(dir);
  const metadata = { ...GOOD_METADATA, prp: { ...GOOD_METADATA.prp, maximumVersion: 2 } };
  runnerdV2 = await writeExecutable(join(dir, 'runnerd-v2'), printingScript(JSON.stringify(metadata)));
  // A release whose tarball escapes package/: refused at extraction, before anything is installed.
  refusedRelease = (
    await buildFakeRelease(join(dir, 'release'), { extraEntries: [{ path: '../escaped.txt', body: 'x' }] })
  ).dir;
  await mkdir(join(dir, 'run-two'));
  await writeBundles(join(dir, 'run-two'), 3, { runId: 'run_two' });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The store gets a campaign whose one try started and never settled (its run SIGKILLed mid-session); again, nothing. */
async function killedCampaign(): Promise<void> {
  const opened = await openStore(store);
  try {
    await opened.recordTryStart({
      campaignId: 'campaign_killed',
      caseId: 'case_a',
      configId: 'config_a',
      attemptId: 'att_killed',
      tryNumber: 1,
      tryId: 'att_killed',
      startedAt: '2026-12-03T10:00:00.000Z',
      runner: { packageName: 'p', packageVersion: '1.0.0', runnerdSha256: 'sha256:r', host: 'h', pid: 7 },
    });
  } finally {
    await opened.close();
  }
}

/** A real output and what its schema is. */
interface Output {
  readonly label: string;
  readonly schemaId: string;
  readonly value: unknown;
  /** The command line that printed it. */
  readonly args: readonly string[];
}
const outputs: Output[] = [];

/** The real CLI (bin/evals.js) in `dir`, its stdin empty. */
function spawned(args: readonly string[]): EvalsRun {
  const result = spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8', input: '' });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
/** The first run of each command is the real CLI, the later ones its program in-process. */
const afterFirstInProcess = firstRunSpawned(spawned, () => dir);
/**
 * Policy replay always runs as the binary: its producer is a process whose group is released only
 * when that child closes, which can be after the command's answer (in-process, a leftover signal
 * listener), and the policy files keep it a process too.
 */
const run = (args: readonly string[]): Promise<EvalsRun> =>
  args[0] === 'policy' ? Promise.resolve(spawned(args)) : afterFirstInProcess(args);

/** Runs `evals` in `dir`, parses its stdout as one JSON document and checks the exit code. */
async function evals(args: readonly string[], exitCode: number): Promise<unknown> {
  const result = await run(args);
  expect(result.status, `evals ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(exitCode);
  return JSON.parse(result.stdout) as unknown;
}

/** Validates an output against `schemaId` (or, by its `schema` member, against its own). */
function expectSchema(label: string, value: unknown, args: readonly string[], schemaId?: string): void {
  const named = (value as { schema?: unknown }).schema;
  const isFailure = typeof value === 'object' && value !== null && 'exitCode' in value && 'error' in value;
  const id = schemaId ?? (isFailure ? FAILURE : SCHEMA_OF[String(named)]);
  expect(id, `${label}: an output with no schema (${String(named)})`).toBeDefined();
  expect(schemaErrors(id ?? '', value), label).toEqual([]);
  outputs.push({ label, schemaId: id ?? '', value, args });
}

const json = async (
  label: string,
  args: readonly string[],
  exitCode: number,
  schemaId?: string,
): Promise<unknown> => {
  const value = await evals(args, exitCode);
  expectSchema(label, value, args, schemaId);
  return value;
};

describe('every --json output of the real CLI holds to its schema', () => {
  it('qualify: a refused release (the record, qualified false)', async () => {
    const record = await json('qualify refused', ['qualify', '--release-dir', refusedRelease, '--json'], 1);
    expect((record as { qualified: boolean }).qualified).toBe(false);
  });

  it('validate: valid, invalid and unreadable inputs', async () => {
    await json('validate valid', ['validate', join(ATTEMPTS, 'valid'), '--json'], 0);
    await json('validate invalid', ['validate', join(ATTEMPTS, 'invalid'), '--json'], 1);
    await json('validate unreadable', ['validate', join(dir, 'missing.json'), '--json'], 2);
  });

  it('ingest, runs, retract, report, grid and compare over a store ingested here', async () => {
    await json(
      'ingest inserted',
      ['ingest', join(ATTEMPTS, 'valid'), 'run-two', '--store', store, '--json'],
      0,
    );
    await json('ingest duplicates', ['ingest', join(ATTEMPTS, 'valid'), '--store', store, '--json'], 0);
    await json('ingest invalid', ['ingest', join(ATTEMPTS, 'invalid'), '--store', store, '--json'], 1);
    await json('ingest unreadable', ['ingest', join(dir, 'missing.json'), '--store', store, '--json'], 2);
    await json('runs', ['runs', '--store', store, '--json'], 0);
    await json('migrate up to date', ['migrate', '--store', store, '--json'], 0);
    await json('report', ['report', '--store', store], 0);
    // pooled, the two runs fall short of 0.99; the newest run (run_two, 3 of 3 solved) holds it
    await json('report gated', ['report', '--store', store, '--all-runs', '--fail-on', 'below:0.99'], 1);
    await json('report gate held', ['report', '--store', store, '--fail-on', 'below:0.99'], 0);
    await json('grid', ['grid', '--store', store, '--json'], 0);
    const args = ['compare', '--store', store, '--a-run', 'run_synthetic', '--b-run', 'run_two', '--json'];
    await json('compare', args, 0);
    await json('compare gated', [...args, '--fail-on', 'regression', '--fail-on', 'below:0.99'], 1);
    const retract = [
      'retract',
      '--store',
      store,
      '--run',
      'run_two',
      '--reason',
      'schema test',
      '--by',
      'ci',
    ];
    await json('retract', [...retract, '--json'], 0);
    await json('retract again', [...retract, '--json'], 0);
    await json('report with a retraction', ['report', '--store', store], 0);
    await killedCampaign();
    const runs = (await json(
      'runs with a campaign of unsettled starts only',
      ['runs', '--store', store, '--json'],
      0,
    )) as {
      runs: { runId: string; attempts: number; spend: unknown }[];
    };
    expect(runs.runs.at(-1)).toMatchObject({
      runId: 'campaign_killed',
      attempts: 0,
      spend: { observedNanodollars: 0, unpriced: 1, unsettledTries: 1 },
    });
  });

  it('a failing grid, compare, runs, migrate and policy replay print the one {schema, exitCode, error} object', async () => {
    const missing = `sqlite:${join(dir, 'no-such-store.sqlite')}`;
    const grid = (await json('grid failure', ['grid', '--store', missing, '--json'], 2)) as {
      schema: string;
    };
    expect(grid.schema).toBe('paperclip-evals/grid/v1');
    const compare = await json(
      'compare failure',
      ['compare', '--store', missing, '--a', 'x', '--b', 'y', '--json'],
      2,
    );
    expect((compare as { schema: string }).schema).toBe('paperclip-evals/compare/v1');
    const runs = await json('runs failure', ['runs', '--store', missing, '--json'], 2);
    expect((runs as { schema: string }).schema).toBe('paperclip-evals/runs/v1');
    const migrate = await json('migrate failure', ['migrate', '--store', missing, '--json'], 2);
    expect((migrate as { schema: string }).schema).toBe('paperclip-evals/migrate/v1');
  });

  it('policy replay: decided, stored, and a producer that breaks the protocol', async () => {
    const replay = (binary: Executable, extra: string[]): string[] => [
      'policy',
      'replay',
      '--policy-binary',
      binary.path,
      '--sha256',
      binary.sha256,
      '--bundle',
      bundlePath,
      '--json',
      ...extra,
    ];
    await json('policy replay', replay(producer, [join(ATTEMPTS, 'valid')]), 0);
    await json('policy replay stored', replay(producer, ['--store', store]), 0);
    const failed = await json('policy replay job error', replay(dropsReply, [join(ATTEMPTS, 'valid')]), 5);
    expect((failed as { schema: string }).schema).toBe('paperclip-evals/policy-replay/v1');
  });

  it('runnerd inspect and negotiate: verified, incompatible and refused (no schema member: by command)', async () => {
    const { good, wrongDigest, exitsOne } = executables;
    const inspect = SCHEMA('runnerd-inspect');
    await json(
      'inspect',
      ['runnerd', 'inspect', '--path', good.path, '--sha256', good.sha256, '--json'],
      0,
      inspect,
    );
    await json(
      'inspect digest',
      ['runnerd', 'inspect', '--path', wrongDigest.path, '--sha256', good.sha256, '--json'],
      4,
      inspect,
    );
    await json(
      'inspect exit 1',
      ['runnerd', 'inspect', '--path', exitsOne.path, '--sha256', exitsOne.sha256, '--json'],
      4,
      inspect,
    );
    const negotiate = (runnerd: TestExecutable, requirements = 'requirements.json'): string[] => [
      'negotiate',
      '--package-metadata',
      'package-metadata.json',
      '--requirements',
      requirements,
      '--catalog',
      'catalog.json',
      '--runnerd',
      runnerd.path,
      '--runnerd-sha256',
      runnerd.sha256,
      '--json',
    ];
    const schema = SCHEMA('negotiate');
    await json('negotiate compatible', negotiate(runnerdV2), 0, schema);
    // The good runnerd speaks PRP 1 only: its driver cannot speak the negotiated PRP 2.
    await json('negotiate incompatible', negotiate(good), 3, schema);
    await json('digest', ['digest', 'catalog.json', 'package-metadata.json', '--json'], 0, SCHEMA('digest'));
    await json('digest canonical', ['digest', '--canonical', 'catalog.json', '--json'], 0, SCHEMA('digest'));
    await json('negotiate bad document', negotiate(runnerdV2, 'package-metadata.json'), 2, schema);
  });

  it('publish and publish --verify: a site, its verification, a defect found, a failure', async () => {
    const site = join(dir, 'site');
    await killedCampaign();
    const published = await json('publish', ['publish', '--store', store, '--out', site, '--json'], 0);
    expect((published as { skipped: unknown }).skipped).toEqual([
      { campaignId: 'campaign_killed', reason: 'no_attempt', unsettledTries: 1, foreign: 0 },
    ]);
    await json('verify', ['publish', '--verify', site, '--json'], 0);
    await writeFile(join(site, 'stray.txt'), 'not in any manifest\n');
    const defect = await json('verify defect', ['publish', '--verify', site, '--json'], 1);
    expect((defect as { ok: boolean }).ok).toBe(false);
    const missing = `sqlite:${join(dir, 'no-such-store.sqlite')}`;
    const failed = await json('publish failure', ['publish', '--store', missing, '--out', site, '--json'], 2);
    expect((failed as { schema: string }).schema).toBe('paperclip-evals/publish/v1');
  });

  it('run --plan, and a failing run and merge (the one failure object)', async () => {
    const demo = join(REPO_ROOT, 'fixtures/environments/demo/evalbook.yaml');
    await json('run plan', ['run', '--plan', '--env', demo, '--campaign', 'schema-plan', '--json'], 0);
    const missing = join(dir, 'no-such-evalbook.yaml');
    const run = ['run', '--env', missing, '--campaign', 'c', '--release-dir', dir, '--json'];
    expect(((await json('run failure', run, 2)) as { schema: string }).schema).toBe(
      'paperclip-evals/campaign/v1',
    );
    const merge = ['merge', join(dir, 'no-such-shard.json'), '--out', join(dir, 'merged.json'), '--json'];
    expect(((await json('merge failure', merge, 2)) as { schema: string }).schema).toBe(
      'paperclip-evals/campaign/v1',
    );
  });
});

/** `runnerd inspect`, as typed: a command path of the tree (a group and its command, or one command). */
function commandOf(args: readonly string[], program = createProgram()): string {
  const [first = '', second = ''] = args;
  const group = program.commands.find((command) => command.name() === first);
  return group !== undefined && group.commands.length > 0 ? `${first} ${second}` : first;
}

describe('every command with --json is among the outputs checked above', () => {
  it('each one printed at least one output that held to its schema', () => {
    const withJson: string[] = [];
    const walk = (command: ReturnType<typeof createProgram>, path: readonly string[]): void => {
      if (command.options.some((option) => option.long === '--json')) withJson.push(path.join(' '));
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(createProgram(), []);
    expect(withJson.length).toBeGreaterThan(10);
    const checked = new Set(outputs.map((output) => commandOf(output.args)));
    expect(withJson.filter((command) => !checked.has(command))).toEqual([]);
  });
});

const DELETE = Symbol('delete');

/** A deep copy of the first output with this label, its member at `pointer` replaced (or deleted). */
function mutated(label: string, pointer: string, replacement: unknown): unknown {
  const output = outputs.find((candidate) => candidate.label === label);
  if (output === undefined) throw new Error(`no output ${label}: the e2e cases above did not run`);
  const copy = structuredClone(output.value);
  const tokens = pointer.split('/').slice(1);
  const last = tokens.pop() ?? '';
  let parent = copy as Record<string, unknown>;
  for (const token of tokens) parent = parent[token] as Record<string, unknown>;
  expect(Object.hasOwn(parent, last) || replacement !== DELETE, `${label} has ${pointer}`).toBe(true);
  if (replacement === DELETE) Reflect.deleteProperty(parent, last);
  else parent[last] = replacement;
  return copy;
}

// [schema, output label, what is wrong, where (a JSON pointer), the wrong value or DELETE]
const MUTATIONS: [string, string, string, string, unknown][] = [
  ['validate-report', 'validate valid', 'a missing summary', '/summary', DELETE],
  ['validate-report', 'validate invalid', 'an unknown status', '/files/0/status', 'broken'],
  ['validate-report', 'validate valid', 'a digest not sha256:hex', '/files/0/fileSha256', 'abc'],
  ['ingest-report', 'ingest inserted', 'an exit code ingest never gives', '/exitCode', 3],
  ['ingest-report', 'ingest inserted', 'a missing coverage', '/coverage', DELETE],
  ['ingest-report', 'ingest invalid', 'an issue without a code', '/invalid/0/issues/0/code', DELETE],
  ['runs', 'runs', 'a count that is not a whole number', '/runs/0/attempts', 1.5],
  ['retraction-report', 'retract', 'an unknown outcome', '/outcomes/0/status', 'deleted'],
  ['migrate', 'migrate up to date', 'an unknown status', '/status', 'done'],
  ['migrate', 'migrate up to date', 'a version that is not a whole number', '/to', 10.5],
  ['report', 'report', 'an unknown attempt status', '/attempts/0/status', 'passed'],
  ['report', 'report', 'a missing summary', '/summary', DELETE],
  ['report', 'report', 'an extra member on an attempt', '/attempts/0/extra', 1],
  ['report', 'report', 'an unknown cost coverage', '/attempts/0/cost/coverage', 'free'],
  ['report', 'report', 'a solve rate above 1', '/summary/grid/0/solveRate', 1.5],
  ['report', 'report gated', 'a gate without its verdict', '/gate/passed', DELETE],
  ['report', 'report gated', 'a gate verdict without the view it judged', '/gate/gates/0/judged', DELETE],
  ['report', 'report gated', 'gates without their view', '/gate/view', DELETE],
  ['report', 'report', 'a view of an unknown kind', '/view/kind', 'pooled'],
  [
    'report',
    'report',
    'a summary without the newest run’s config rates',
    '/summary/latestConfigStats',
    DELETE,
  ],
  ['grid', 'grid', 'an unknown denominator policy', '/denominatorPolicy', 'some'],
  ['grid', 'grid', 'a cell without statusCounts', '/grid/0/statusCounts', DELETE],
  ['compare', 'compare', 'compared by something else', '/by', 'case'],
  ['compare', 'compare', 'a missing McNemar p', '/mcnemarP', DELETE],
  ['compare', 'compare', 'a comparison without the runs it counts', '/runs', DELETE],
  ['compare', 'compare', 'a comparison without its view', '/view', DELETE],
  ['policy-replay', 'policy replay', 'an unknown agreement', '/calls/0/agreement', 'fine'],
  ['policy-replay', 'policy replay', 'a missing bundle digest', '/bundleDigest', DELETE],
  ['cli-failure', 'grid failure', 'a failure with exit code 0', '/exitCode', 0],
  ['cli-failure', 'policy replay job error', 'a failure without its error', '/error', DELETE],
  ['runnerd-inspect', 'inspect', 'a verified artifact without its digest', '/sha256', DELETE],
  ['runnerd-inspect', 'inspect digest', 'a failure with an unknown code', '/code', 'oops'],
  ['digest', 'digest', 'a digest not sha256:hex', '/files/0/sha256', 'sha256:XYZ'],
  ['qualification-record', 'qualify refused', 'an unknown check status', '/checks/0/status', 'ok?'],
  ['negotiate', 'negotiate incompatible', 'incompatible with no issue', '/issues', []],
  [
    'negotiate',
    'negotiate compatible',
    'a receipt without its PRP version',
    '/receipt/negotiatedPrpVersion',
    DELETE,
  ],
  ['negotiate', 'negotiate bad document', 'a failure that says ok', '/ok', true],
  ['grid', 'grid', 'an extra member (the shape is closed)', '/statusCounts', {}],
  ['cli-failure', 'compare failure', 'an issue that is not an object', '/error/issues', ['x']],
  ['ingest-report', 'ingest duplicates', 'a store that is not named', '/store', ''],
  ['publish', 'publish', 'a site that is not named', '/site', DELETE],
  ['publish', 'publish', 'public that is not a boolean', '/public', 'no'],
  ['publish', 'publish', 'a skipped campaign without its reason', '/skipped/0/reason', DELETE],
  ['publish', 'publish', 'a publication that does not say what it skipped', '/skipped', DELETE],
  [
    'runs',
    'runs with a campaign of unsettled starts only',
    'a run without its unsettled tries',
    '/runs/2/spend/unsettledTries',
    DELETE,
  ],
  ['site-verification', 'verify', 'a verification without its issues', '/issues', DELETE],
  ['site-verification', 'verify defect', 'a file count that is not a number', '/files', 'many'],
  ['campaign-plan', 'run plan', 'a plan without its attempts', '/attempts', DELETE],
  ['campaign-plan', 'run plan', 'a plan without its suite fingerprint', '/suiteFingerprint', DELETE],
];

describe('each schema refuses a plausible wrong output', () => {
  it.each(MUTATIONS)('%s refuses %s with %s', (schema, label, _what, pointer, replacement) => {
    expect(schemaErrors(SCHEMA(schema), mutated(label, pointer, replacement))).not.toEqual([]);
  });

  it('every schema written for a CLI output has a mutation row', () => {
    const covered = new Set(MUTATIONS.map(([schema]) => schema));
    const bySchemaName = [SCHEMA('runnerd-inspect'), SCHEMA('negotiate'), SCHEMA('digest')];
    for (const id of [...Object.values(SCHEMA_OF), FAILURE, ...bySchemaName])
      expect(covered).toContain(id.split('/').at(-2));
  });
});
