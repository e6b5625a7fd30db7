// One verdict per input, whatever the flags: `evals ingest` with a foreign attempt among the inputs
// reports each bad input (not JSON, a duplicate key, contract-invalid, an eval-session artifact whose
// bundle is missing, outside the artifact's folder, or behind a symbolic link) with the same
// invalid/unreadable line and codes with no environment, with --env (the run refused for its foreign
// attempt) and with --env --keep-foreign. Nothing is relabelled foreign or dropped, and a file outside
// the artifact's folder or behind a link is never read (what it holds is never printed). The first
// run is the real binary, the others run its main() in-process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const sha256 = (bytes: Buffer | string): string =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);

/** What a file outside an artifact's folder holds: it must never be read, so never printed. */
const LEAKED = JSON.stringify({
  identity: {
    runId: 'LEAKED_RUN',
    caseId: 'LEAKED_CASE',
    configId: 'LEAKED_CONFIG',
    attemptId: 'LEAKED_ATTEMPT',
  },
  input: { caseSha256: 'x', configSha256: 'y' },
});

/** An eval-session artifact (the shape node's eval-session tests use) naming its bundle at `path`. */
function artifactNaming(path: string, bundleBytes: Buffer | string): Record<string, unknown> {
  const fixture = JSON.parse(
    readFileSync(join(ROOT, 'fixtures/attempts/valid/solved-no-denials.json'), 'utf8'),
  ) as { runner: { binary: { sha256: string } }; identity: { attemptId: string } };
  return {
    schema: 'paperclip-runner/eval-session-artifact/v1',
    attemptId: fixture.identity.attemptId,
    build: {
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.1.0' },
      contracts: { nativeExecution: 1, runnerdArtifact: 1, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
      semanticCatalog: { version: 1, sha256: `sha256:${'e'.repeat(64)}` },
    },
    runnerd: { path: '[withheld]', sha256: fixture.runner.binary.sha256 },
    requestedModel: 'paperclip-deterministic-1',
    provider: 'paperclip_deterministic',
    driver: 'paperclip_deterministic_harness',
    providerVersion: '1.0.0',
    providerSessionId: 'session_1',
    turn: { turnId: 'turn_1', status: 'completed', assistantText: 'done' },
    snapshot: { usageLedger: [{ receiptId: 'r1' }] },
    usage: {
      agentTurns: 4,
      providerRequests: 4,
      inputTokens: 1000,
      outputTokens: 10,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: 2_600_000,
      pricingVersion: 'list-2026-12',
      ratesUsdPerMillionTokens: { input: 2.5, cachedInput: 0.25, output: 10 },
      costCoverage: 'estimated',
      legacyLedgerCostNanodollars: 5_000_000,
    },
    timing: {
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:01.000Z',
      durationMs: 1000,
    },
    nativeExecution: { path, sha256: sha256(bundleBytes), byteSize: Buffer.byteLength(bundleBytes) },
  };
}

const put = (path: string, text: string): string => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
  return path;
};

/** Each kind of bad input, as ingest names it, and the codes it must be reported with. */
const BAD: { name: string; input: () => string; verdict: 'invalid' | 'unreadable' }[] = [
  { name: 'not JSON', input: () => put('bad/syntax.json', '{"schema": '), verdict: 'invalid' },
  {
    name: 'a duplicate key (plain JSON.parse would take the last)',
    input: () =>
      put(
        'bad/duplicate.json',
        JSON.stringify(syntheticAttempt({ caseId: 'case_a' })).replace('{', '{"identity":{},'),
      ),
    verdict: 'invalid',
  },
  {
    name: 'a contract-invalid bundle',
    input: () => {
      mkdirSync(join(dir, 'bad'), { recursive: true });
      copyFileSync(
        join(ROOT, 'fixtures/attempts/invalid/artifact-digest-uppercase.json'),
        join(dir, 'bad/uppercase.json'),
      );
      return 'bad/uppercase.json';
    },
    verdict: 'invalid',
  },
  {
    name: 'an artifact whose bundle is missing',
    input: () => put('missing/artifact.json', JSON.stringify(artifactNaming('attempt/none.json', LEAKED))),
    verdict: 'invalid',
  },
  {
    name: 'an artifact whose bundle is outside its folder',
    input: () => {
      put('outside/x.json', LEAKED);
      return put('in/artifact.json', JSON.stringify(artifactNaming('../outside/x.json', LEAKED)));
    },
    verdict: 'invalid',
  },
  {
    name: 'an artifact whose bundle is a symbolic link',
    input: () => {
      put('elsewhere/x.json', LEAKED);
      mkdirSync(join(dir, 'linked'), { recursive: true });
      symlinkSync(join(dir, 'elsewhere/x.json'), join(dir, 'linked/link.json'));
      return put('linked/artifact.json', JSON.stringify(artifactNaming('link.json', LEAKED)));
    },
    verdict: 'invalid',
  },
];

const MODES = {
  'no environment': [],
  '--env': ['--env', 'evalbook.json'],
  '--env --keep-foreign': ['--env', 'evalbook.json', '--keep-foreign'],
} as const;

interface IngestJson {
  processed: number;
  invalid: { input: string; issues: { code: string }[] }[];
  unreadable: { input: string; error: string }[];
  foreign: { input: string }[];
}

let inputs: string[];
const results = new Map<string, { status: number; output: string; json: IngestJson }>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-ingest-verdicts-'));
  const suite = syntheticAttempt({ caseId: 'case_a', configId: 'base' }).input as {
    caseSha256: string;
    configSha256: string;
  };
  writeFileSync(
    join(dir, 'evalbook.json'),
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [{ id: 'case_a', sha256: suite.caseSha256 }],
      configs: [{ id: 'base', sha256: suite.configSha256, model: 'm', driver: 'paperclip-deterministic' }],
    }),
  );
  const good = put(
    'good/case-a.json',
    JSON.stringify(syntheticAttempt({ caseId: 'case_a', configId: 'base' })),
  );
  const foreign = put(
    'good/foreign.json',
    JSON.stringify(syntheticAttempt({ caseId: 'case_other', configId: 'base', attemptId: 'other_1' })),
  );
  inputs = [good, foreign, ...BAD.map((bad) => bad.input())];
  for (const [mode, flags] of Object.entries(MODES)) {
    const store = `book-${mode.replace(/\W+/g, '-')}`;
    mkdirSync(join(dir, store));
    const result = await run([
      'ingest',
      ...inputs,
      '--store',
      `sqlite:${store}/evalbook.sqlite`,
      '--json',
      ...flags,
    ]);
    results.set(mode, {
      status: result.status,
      output: `${result.stdout}\n${result.stderr}`,
      json: JSON.parse(result.stdout) as IngestJson,
    });
  }
}, 120_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The invalid and unreadable lines of a run, by input: its codes (sorted), or `unreadable`. */
const verdicts = (json: IngestJson): Record<string, string> =>
  Object.fromEntries([
    ...json.invalid.map((item): [string, string] => [
      item.input,
      item.issues
        .map((issue) => issue.code)
        .sort()
        .join(','),
    ]),
    ...json.unreadable.map((item): [string, string] => [item.input, 'unreadable']),
  ]);

describe('ingest judges each input the same with or without --env', () => {
  it('every bad input is reported, with the same codes, in every mode', () => {
    const seen = Object.keys(MODES).map((mode) => verdicts(results.get(mode)!.json));
    const [first] = seen;
    for (const [index, bad] of BAD.entries()) {
      const input = inputs[index + 2]!;
      expect(first?.[input], `${bad.name} (${input}) without --env`).toBeDefined();
      if (bad.verdict === 'unreadable') expect(first?.[input]).toBe('unreadable');
      else expect(first?.[input]).not.toBe('unreadable');
    }
    for (const [index, mode] of Object.keys(MODES).entries()) expect(seen[index], mode).toEqual(first);
  });

  it.each(Object.keys(MODES))('%s: every input counted, none of the bad ones called foreign', (mode) => {
    const { json } = results.get(mode)!;
    expect(json.processed).toBe(inputs.length);
    const badInputs = inputs.slice(2);
    expect(json.foreign.map((item) => item.input).filter((input) => badInputs.includes(input))).toEqual([]);
    if (mode !== 'no environment')
      expect(json.foreign.map((item) => item.input)).toEqual(['good/foreign.json']);
  });

  it.each(Object.keys(MODES))(
    '%s: a bundle outside the folder or behind a link is refused, never read',
    (mode) => {
      const { output, json } = results.get(mode)!;
      expect(output).not.toContain('LEAKED');
      for (const input of ['in/artifact.json', 'linked/artifact.json'])
        expect(verdicts(json)[input], input).toContain('native_bundle_refused');
      expect(verdicts(json)['missing/artifact.json']).toContain('native_bundle_missing');
    },
  );

  it('--env refuses the run for its foreign attempt, exit 1, with the bad inputs still reported', () => {
    const { status, json } = results.get('--env')!;
    expect(status).toBe(1);
    expect(json.invalid.length).toBe(BAD.length);
  });
});
