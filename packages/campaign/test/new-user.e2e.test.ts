// `evals run` as a new user meets it, through the built CLI with real processes (a fake release of
// the qualification tests, its record accepted; the stand-in eval-session as the bin): everything
// checkable without running anything is refused before the join (an --out that cannot be written
// or is another flag's file, a campaign id that --out or the ledger records for another suite, a
// store in a missing folder); the summary lists each failed try with its coded reason (capped, "and
// N more") and never says "complete" without how many failed; a resumed campaign's progress starts
// from the ledger's spend; and on a terminal (script(1)'s pseudo-terminal) the phases before the
// first session are shown and no message is glued to the progress line, while off a terminal or
// with --json nothing extra is printed.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease, writeQualificationRecord } from '@paperclip-evals/qualification';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { buildFakeRelease } from '@paperclip-evals/test-kit/fake-release';
import { testPnpm } from '@paperclip-evals/test-kit/pnpm';
import { createStandIn, suiteEnvironment } from './support/stand-in.ts';

import type { StandIn } from './support/stand-in.ts';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function spawned(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const evals = (args: readonly string[]): Promise<Run> => spawned(process.execPath, [EVALS_BIN, ...args]);

/**
 * The command on script(1)'s pseudo-terminal, 200 columns wide (the progress line is cut to the
 * width; these phases are read whole): stdout and stderr both reach its one stream.
 */
const onTerminal = (args: readonly string[]): Promise<Run> => {
  const quoted = [process.execPath, EVALS_BIN, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`);
  return spawned('script', ['-qec', `stty cols 200 rows 50; ${quoted.join(' ')}`, '/dev/null']);
};

let scratch: string;
let standIn: StandIn;
let release: string;
let record: string;
/** A release folder that is not there: a refusal before the join is the only way to get past it. */
let noRelease: string;

const CASES = Array.from({ length: 3 }, (_, index) => ({ id: `case_${index}`, behaviour: 'succeed' }));

async function suite(name: string, cases: Parameters<typeof suiteEnvironment>[0], attempts = 1) {
  const path = join(scratch, `${name}.json`);
  await writeFile(path, JSON.stringify(suiteEnvironment(cases, { attempts, turnTimeoutMs: 5_000 })));
  return path;
}

const runArgs = (campaign: string, environment: string, releaseDir = release): string[] => [
  'run',
  '--release-dir',
  releaseDir,
  '--qualification',
  record,
  '--env',
  environment,
  '--campaign',
  campaign,
  '--store',
  `sqlite:${join(scratch, `${campaign}.sqlite`)}`,
  '--work-dir',
  join(scratch, `work-${campaign}`),
  '--eval-session-bin',
  standIn.binPath,
  '--eval-session-sha256',
  standIn.sha256,
  '--max-parallel',
  '2',
];

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-new-user-'));
  standIn = await createStandIn('new-user');
  release = (await buildFakeRelease(join(scratch, 'release'))).dir;
  const work = join(scratch, 'qualify-work');
  await mkdir(work);
  record = join(scratch, 'qualification.json');
  await writeQualificationRecord(
    record,
    await qualifyRelease({ releaseDir: release, tempDir: work, pnpm: testPnpm() }),
  );
  noRelease = join(scratch, 'no-such-release');
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await standIn.remove();
});

describe('refused before the join: what needs nothing run', () => {
  it('an --out in a missing folder: exit 2 naming --out, before the release is looked at', async () => {
    const environment = await suite('pre-out', CASES);
    const before = (await standIn.spawns()).length;
    const result = await evals([
      ...runArgs('pre-out', environment, noRelease),
      '--out',
      join(scratch, 'missing', 'campaign.json'),
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('paperclip_output_unwritable');
    expect(result.stderr).not.toContain('paperclip_campaign_release_incompatible');
    expect((await standIn.spawns()).length).toBe(before);
    expect(await exists(join(scratch, 'pre-out.sqlite'))).toBe(false);
  });

  it('an --out that is the --env file: exit 2 (output_conflicts_input), the suite untouched', async () => {
    const environment = await suite('pre-same', CASES);
    const text = await readFile(environment, 'utf8');
    const result = await evals([...runArgs('pre-same', environment, noRelease), '--out', environment]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('output_conflicts_input');
    expect(await readFile(environment, 'utf8')).toBe(text);
  });

  it('a --store in a missing folder: exit 2 before the release is looked at', async () => {
    const environment = await suite('pre-store', CASES);
    const args = runArgs('pre-store', environment, noRelease);
    args.splice(args.indexOf('--store') + 1, 1, `sqlite:${join(scratch, 'nowhere', 'x.sqlite')}`);
    const result = await evals(args);
    expect(result.code, result.stderr).toBe(2);
    // The store's refusal, naming its path: not the release's (its folder is not there either).
    expect(result.stderr).toContain('paperclip_output_unwritable');
    expect(result.stderr).toContain(join(scratch, 'nowhere'));
    expect(result.stderr).not.toContain('no-such-release');
  });

  it('a campaign id --out or the ledger records for another suite: exit 1 (a conflict), before the join', async () => {
    const environment = await suite('pre-id', CASES);
    const out = join(scratch, 'pre-id-record.json');
    const first = await evals([...runArgs('pre-id', environment), '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const other = await suite('pre-id-other', CASES.slice(0, 2));
    const before = (await standIn.spawns()).length;
    // --out holds the other suite's record of this id.
    const viaOut = await evals([...runArgs('pre-id', other, noRelease), '--out', out]);
    expect(viaOut.code, viaOut.stderr).toBe(1);
    expect(viaOut.stderr).toContain('paperclip_campaign_record_conflict');
    expect(viaOut.stderr).toContain('campaign_id_reused');
    expect(viaOut.stderr).not.toContain('paperclip_campaign_release_incompatible');
    // No --out: the ledger records the campaign for the other suite.
    const viaLedger = await evals(runArgs('pre-id', other, noRelease));
    expect(viaLedger.code, viaLedger.stderr).toBe(1);
    expect(viaLedger.stderr).toContain('the ledger records campaign pre-id with another suiteFingerprint');
    expect((await standIn.spawns()).length).toBe(before);
  }, 60_000);
});

describe('the summary a person reads', () => {
  it('lists each failed try (lane, case, attempt, try, coded reason), capped with "and N more", and says how many failed', async () => {
    const failing = Array.from({ length: 12 }, (_, index) => ({
      id: `bad_${index}`,
      behaviour: 'nonretryable',
    }));
    const environment = await suite('failed', [{ id: 'good', behaviour: 'succeed' }, ...failing]);
    const result = await evals(runArgs('failed', environment));
    expect(result.code, result.stderr).toBe(1);
    const [status] = result.stdout.split('\n');
    expect(status).toBe('campaign failed: complete · 12 of 13 tries failed');
    const listed = result.stdout.split('\n').filter((line) => line.startsWith('  ✗ '));
    expect(listed).toHaveLength(10);
    for (const line of listed)
      expect(line).toMatch(
        /^ {2}✗ lane_a × bad_[0-9]+ #1 try 1: infrastructure_failure eval_orchestration_failure — .*the provider profile is invalid/,
      );
    expect(result.stdout).toContain(
      '  … and 2 more (every try with its reason: the record, --out or --json)',
    );
  }, 60_000);

  it('a resumed campaign: progress counts the spend the ledger already records, never $0.00', async () => {
    const environment = await suite('resumed', CASES, 2);
    expect((await evals(runArgs('resumed', environment))).code).toBe(0);
    const again = await evals(runArgs('resumed', environment));
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stderr.split('\n').filter((line) => line.startsWith('resumed: ['));
    expect(lines).toHaveLength(6);
    // 6 tries of 1,000 µ$ each in the ledger: the rerun starts from $0.006.
    for (const line of lines) expect(line).toMatch(/\(already in the ledger\) · spend \$0\.006 · /);
  }, 60_000);
});

describe('on a terminal', () => {
  it('shows the phases before the first session, and no message is glued to the progress line', async () => {
    const environment = await suite('tty', CASES);
    const result = await onTerminal(runArgs('tty', environment));
    expect(result.code, result.stdout).toBe(0);
    for (const phase of [
      'checking --out, the store and the campaign id',
      'checking the qualification record against the release, runnerd and negotiation',
      "installing the release's paperclip-runner-eval-session offline",
    ])
      expect(result.stdout).toContain(`\r\u001b[Ktty: ${phase} · `);
    // Every message starts on a cleared line: never right after the progress line's text.
    expect(result.stdout).toContain('\r\u001b[Kevals: campaign tty recorded in the ledger');
    expect(result.stdout).not.toMatch(/[0-9]sevals: /);
  }, 60_000);

  it('with --json, or off a terminal, prints nothing extra', async () => {
    const environment = await suite('quiet', CASES);
    const json = await onTerminal([...runArgs('quiet', environment), '--json']);
    expect(json.code, json.stdout).toBe(0);
    expect(json.stdout).not.toContain('checking the qualification record');
    const piped = await evals(runArgs('quiet-piped', environment));
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('\u001b');
    expect(piped.stderr).not.toContain('checking the qualification record');
  }, 60_000);
});
