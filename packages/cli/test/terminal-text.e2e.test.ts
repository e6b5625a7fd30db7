// Text from input is data on a terminal and in a CI log: the real `evals` binary run over hostile ids
// (ESC colour and OSC 8 hyperlink sequences, a carriage return and a newline that start GitHub
// Actions workflow commands, a bidi override, the older `##[command]` form) in bundles, file names,
// a store (ids, a retraction's who and why) and runnerd's output. Whatever a command prints, human
// text or --json, holds no raw control, format or separator character and no line a runner reads as
// a workflow command; the hostile text is still shown (escaped), and --json parses to it exactly.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { canonicalDigest } from '../../contract/src/digest.ts';
import { GOOD_METADATA, sha256Of, shQuote } from '@paperclip-evals/test-kit/test-executables';
import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

/** What an attacker puts in an id: each piece a terminal or a CI runner would act on. */
const HOSTILE =
  '\u001b[31m' +
  '\u001b]8;;http://x\u0007' +
  '\r::add-mask::secret' +
  '\n::error::forged' +
  '\u202e' +
  ' ##[set-output name=x]y';
const hostile = (label: string): string => `${label}${HOSTILE}`;
const CASE_ID = hostile('case');
const CONFIG_ID = hostile('config');
// The attempt id shapes the envelopes' call ids, which must match a pattern: it stays plain.
const ATTEMPT_ID = 'attempt_1';
const FILE_NAME = `bundle\u001b[31m\r::add-mask::secret\n::error::forged\u202e.json`;

/**
 * A character no line of human or JSON output may hold raw: C0 and C1 controls and DEL, format
 * characters (bidi embeddings, overrides, isolates and marks, zero-width characters), line and
 * paragraph separators.
 */
const RAW_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** A line GitHub's runner reads as a workflow command: `::` after leading white space, `##[` anywhere. */
const WORKFLOW_COMMAND = /^\s*::|##\[|##vso\[/iu;

let dir = '';
const at = (...names: string[]): string => join(dir, ...names);
let runnerdSha256 = '';
let rawRunnerdSha256 = '';
let producerSha256 = '';
let crashingProducerSha256 = '';

/**
 * A policy producer that speaks the protocol but decides every call with a hostile verdict and
 * reason (an unfamiliar verdict: reported, never read as allow); with `crash`, one that dies at start
 * writing hostile text to stderr (a job error quoting its stderr).
 */
function hostileProducer(crash: boolean): string {
  return `#!${process.execPath}
const out = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
if (${String(crash)}) { process.stderr.write(${JSON.stringify(`producer died${HOSTILE}\n`)}); process.exit(3); }
const canon = (v) => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
  : v !== null && typeof v === 'object' ? '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}'
  : JSON.stringify(v);
let digest = '';
out({ type: 'handshake', engine_version: '0.0.0-hostile' });
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const frame = JSON.parse(line);
  if (frame.type === 'bundle') {
    digest = 'sha256:' + require('node:crypto').createHash('sha256').update(canon(frame.bundle)).digest('hex');
    return out({ type: 'bundle_ack', bundle_digest: digest, skipped: [] });
  }
  out({ type: 'response', id: frame.id, bundle_digest: digest, state_out: frame.state_in ?? {},
    decision: { verdict: ${JSON.stringify(hostile('allow'))}, rule_id: 'r1', reason: ${JSON.stringify(hostile('why'))} } });
});
`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-terminal-text-e2e-'));
  const ids = { caseId: CASE_ID, configId: CONFIG_ID };
  mkdirSync(at('ok'));
  writeFileSync(at('ok', FILE_NAME), JSON.stringify(syntheticAttempt({ ...ids, attemptId: ATTEMPT_ID })));
  writeFileSync(
    at('ok', 'unsolved.json'),
    JSON.stringify(syntheticAttempt({ ...ids, attemptId: 'attempt_2', runTerminalState: 'failed' })),
  );
  mkdirSync(at('conflict'));
  writeFileSync(
    at('conflict', 'same-identity.json'),
    JSON.stringify(syntheticAttempt({ ...ids, attemptId: ATTEMPT_ID, costMicros: 7 })),
  );
  // The run id must match a pattern in the tool envelopes: every one is an issue quoting it.
  writeFileSync(at('invalid.json'), JSON.stringify(syntheticAttempt({ ...ids, runId: hostile('run') })));

  const metadata = {
    ...GOOD_METADATA,
    packageVersion: hostile('0.4.2'),
    prp: { ...GOOD_METADATA.prp, name: hostile('paperclip.runner') },
  };
  const script = `#!/bin/sh\nprintf '%s\\n' ${shQuote(JSON.stringify(metadata))}\n`;
  writeFileSync(at('paperclip-runnerd'), script, { mode: 0o755 });
  runnerdSha256 = sha256Of(script);
  // Not JSON: the resolver quotes its first characters, so the ones that matter come first.
  const raw = `#!/bin/sh\nprintf '%s\\n' ${shQuote(`\u001b[31m\u202e##[add-mask]secret${HOSTILE}`)}\n`;
  writeFileSync(at('raw-runnerd'), raw, { mode: 0o755 });
  rawRunnerdSha256 = sha256Of(raw);

  const producer = hostileProducer(false);
  writeFileSync(at('producer.cjs'), producer, { mode: 0o755 });
  producerSha256 = sha256Of(producer);
  const crashing = hostileProducer(true);
  writeFileSync(at('crashing-producer.cjs'), crashing, { mode: 0o755 });
  crashingProducerSha256 = sha256Of(crashing);
  writeFileSync(at('policy.json'), JSON.stringify(bundleOf(denyApprovals)));

  const catalog = { schema: 'paperclip-runner/semantic-catalog/v1', version: 1, operations: [] };
  writeFileSync(at('catalog.json'), JSON.stringify(catalog));
  writeFileSync(
    at('package-metadata.json'),
    JSON.stringify({
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.4.2' },
      contracts: { nativeExecution: 1, runnerdArtifact: 2, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
      semanticCatalog: { version: 1, sha256: canonicalDigest(catalog) },
    }),
  );
  writeFileSync(
    at('requirements.json'),
    JSON.stringify({
      schema: 'paperclip-evals/consumer-requirements/v1',
      consumer: 'paperclip-evals',
      packageVersion: '0.4.2',
      nativeExecution: 'paperclip-runner/native-execution/v1',
      prp: { minimumVersion: 1, maximumVersion: 1 },
      driver: {
        contractVersion: 1,
        requiredCapabilities: [],
        descriptor: {
          kind: 'paperclip-deterministic',
          version: '1.0.0',
          protocolVersion: 'prp.v1',
          capabilities: {},
        },
      },
    }),
  );
  // The store the grid and report read: the hostile attempts, ingested once.
  const ingested = evals(['ingest', 'ok', '--store', 'sqlite:book.sqlite']);
  expect(ingested.status, ingested.stderr).toBe(0);
  // A store whose retraction (who and why) is hostile: `runs` prints what the store holds.
  expect(evals(['ingest', 'ok', '--store', 'sqlite:retracted.sqlite']).status).toBe(0);
  const retracted = evals([
    'retract',
    '--store',
    'sqlite:retracted.sqlite',
    '--run',
    'run_synthetic',
    '--reason',
    hostile('why'),
    '--by',
    hostile('bob'),
  ]);
  expect(retracted.status, retracted.stderr).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function evals(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  // NO_COLOR unset and no terminal: the only control characters of ours are newlines.
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8', input: '' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const STORE = ['--store', 'sqlite:book.sqlite'];
const negotiate = (json: string[]): string[] => [
  'negotiate',
  '--package-metadata',
  'package-metadata.json',
  '--requirements',
  'requirements.json',
  '--catalog',
  'catalog.json',
  '--runnerd',
  'paperclip-runnerd',
  '--runnerd-sha256',
  runnerdSha256,
  ...json,
];

const replay = (binary: string, sha256: string, json: string[] = []): string[] => [
  'policy',
  'replay',
  '--policy-binary',
  binary,
  '--sha256',
  sha256,
  '--bundle',
  'policy.json',
  ...json,
  at('ok', 'unsolved.json'),
];

/** [what, argv, whether the output is --json]. Every command echoes hostile text from its input. */
const RUNS: [string, () => string[], boolean][] = [
  ['validate: a hostile file name', () => ['validate', 'ok'], false],
  ['validate: issues quoting a hostile id', () => ['validate', 'invalid.json'], false],
  ['validate --json', () => ['validate', 'ok', 'invalid.json', '--json'], true],
  ['ingest: invalid bundles', () => ['ingest', 'invalid.json', '--store', 'sqlite:other.sqlite'], false],
  ['ingest: a conflict names the hostile identity', () => ['ingest', 'conflict', ...STORE], false],
  ['ingest --json', () => ['ingest', 'conflict', 'invalid.json', ...STORE, '--json'], true],
  ['grid: hostile case and config ids', () => ['grid', ...STORE], false],
  ['grid --json', () => ['grid', ...STORE, '--json'], true],
  [
    'report: gate verdicts on stderr name a hostile config',
    () => ['report', ...STORE, '--format', 'md', '--out', 'report.md', '--fail-on', 'below:0.99'],
    false,
  ],
  ['report --format json on stdout', () => ['report', ...STORE, '--format', 'json'], true],
  ['report --format junit on stdout', () => ['report', ...STORE, '--format', 'junit'], false],
  ['runs: a retraction the store holds', () => ['runs', '--store', 'sqlite:retracted.sqlite'], false],
  ['runs --json', () => ['runs', '--store', 'sqlite:retracted.sqlite', '--json'], true],
  [
    'runnerd inspect: hostile build metadata',
    () => ['runnerd', 'inspect', '--path', 'paperclip-runnerd', '--sha256', runnerdSha256],
    false,
  ],
  [
    'runnerd inspect --json',
    () => ['runnerd', 'inspect', '--path', 'paperclip-runnerd', '--sha256', runnerdSha256, '--json'],
    true,
  ],
  [
    'runnerd inspect: hostile bytes that are not JSON',
    () => ['runnerd', 'inspect', '--path', 'raw-runnerd', '--sha256', rawRunnerdSha256],
    false,
  ],
  ['negotiate: mismatches quoting hostile metadata', () => negotiate([]), false],
  ['negotiate --json', () => negotiate(['--json']), true],
  ['policy replay: hostile verdicts and reasons', () => replay('producer.cjs', producerSha256), false],
  ['policy replay --json', () => replay('producer.cjs', producerSha256, ['--json']), true],
  [
    'policy replay: a producer dying with hostile stderr',
    () => replay('crashing-producer.cjs', crashingProducerSha256),
    false,
  ],
];

describe('text from input is data in what evals prints', () => {
  it.each(RUNS)('%s', (_what, argv, json) => {
    const run = evals(argv());
    const output = `${run.stdout}${run.stderr}`;
    // The hostile text was echoed (escaped), so the rest of the test cannot pass by printing nothing.
    // (JUnit XML cannot carry ESC even as a reference: it shows U+FFFD there, as it always has.)
    expect(output.includes('\\u001b[31m') || output.includes('\ufffd[31m'), output).toBe(true);
    for (const [name, text] of [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
    ] as const) {
      for (const line of text.split('\n')) {
        expect(line, `${name} holds a raw control character:\n${text}`).not.toMatch(RAW_CONTROL);
        expect(line, `${name} has a workflow-command line:\n${text}`).not.toMatch(WORKFLOW_COMMAND);
      }
    }
    if (json) {
      // --json is still exact JSON: it parses, and the hostile ids come back as they were.
      const value = JSON.stringify(JSON.parse(run.stdout));
      expect(
        [CASE_ID, CONFIG_ID, hostile('0.4.2'), hostile('run'), hostile('why'), hostile('allow')].some((id) =>
          value.includes(JSON.stringify(id).slice(1, -1)),
        ),
      ).toBe(true);
    }
  });

  it('shows the hostile text visibly, one escape per character, on the line it belongs to', () => {
    const run = evals(['grid', ...STORE]);
    expect(run.stdout).toContain(
      'case\\u001b[31m\\u001b]8;;http://x\\u0007\\r::add-mask::secret\\n::error::forged\\u202e \\u0023#[set-output name=x]y',
    );
  });
});
