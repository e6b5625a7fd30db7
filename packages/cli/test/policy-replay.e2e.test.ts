// `evals policy replay` as a real process, driving the real `evals policy evaluate` (through a
// verified wrapper script) over the attempt fixtures, and its exit codes when the producer breaks
// the protocol, the binary is not the one vouched for, or the bundle is unusable.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_SESSIONS_PER_PROCESS } from '../../policy/src/replay.ts';
import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';
import { brokenProducer, realProducer, writeExecutable } from '@paperclip-evals/test-kit/producers';

import type { Defect, Executable } from '@paperclip-evals/test-kit/producers';

const ATTEMPTS = join(REPO_ROOT, 'fixtures/attempts/valid');

let dir: string;
let bundlePath: string;
let producer: Executable;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-policy-replay-e2e-'));
  bundlePath = join(dir, 'policy.json');
  // Pretty-printed and newline-ended, as people write files: the client must still send one frame.
  await writeFile(bundlePath, `${JSON.stringify(bundleOf(denyApprovals), null, 2)}\n`);
  producer = await realProducer(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function replay(
  binary: Executable,
  extra: string[] = [],
  bundle = bundlePath,
  attempts: string[] = [ATTEMPTS],
  input?: string,
) {
  return spawnSync(
    process.execPath,
    [
      EVALS_BIN,
      'policy',
      'replay',
      '--policy-binary',
      binary.path,
      '--sha256',
      binary.sha256,
      '--bundle',
      bundle,
      ...extra,
      ...attempts,
    ],
    { encoding: 'utf8', ...(input === undefined ? {} : { input }) },
  );
}

describe('evals policy replay', () => {
  it('replays every tool call of a directory of attempts through the real producer (exit 0)', () => {
    const run = replay(producer, ['--json', '--processes', '2']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as {
      schema: string;
      rows: number;
      calls: { toolName: string; agreement: string; verdict: string }[];
    };
    expect(report.schema).toBe('paperclip-evals/policy-replay/v1');
    expect(report.calls).toHaveLength(report.rows);
    expect(report.calls.length).toBeGreaterThan(0);
    for (const call of report.calls) expect(call.agreement).toBe('agree');
    expect(report.calls.filter((call) => call.verdict === 'deny').map((call) => call.toolName)).toContain(
      'decide_approval',
    );
  });

  it('decides the same, listed in the same order, whatever the sessions in flight (--sessions-per-process, default in --help)', () => {
    const decided = (extra: string[]) => {
      const run = replay(producer, ['--json', ...extra]);
      expect(run.status).toBe(0);
      return (JSON.parse(run.stdout) as { calls: Record<string, unknown>[] }).calls;
    };
    const atDefault = decided([]);
    expect(decided(['--sessions-per-process', '1'])).toEqual(atDefault);
    // More sessions in flight than there are sessions starts only as many as there are.
    expect(decided(['--sessions-per-process', '100000000'])).toEqual(atDefault);
    const help = spawnSync(process.execPath, [EVALS_BIN, 'policy', 'replay', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain(`(default: ${DEFAULT_SESSIONS_PER_PROCESS})`);
    expect(replay(producer, ['--sessions-per-process', '0']).status).toBe(2);
    const tooMany = replay(producer, ['--processes', '1025']);
    expect(tooMany.status).toBe(2);
    expect(tooMany.stderr).toMatch(/--processes.*expected at most 1024, received 1025/);
  });

  it('draws a progress line on a terminal, and nothing when stderr is not one', () => {
    // script(1) gives the command a pseudo-terminal, as a person at a shell would.
    const command = [
      EVALS_BIN,
      'policy',
      'replay',
      '--policy-binary',
      producer.path,
      '--sha256',
      producer.sha256,
    ]
      .concat(['--bundle', bundlePath, ATTEMPTS])
      .map((arg) => `'${arg}'`)
      .join(' ');
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toMatch(/replaying tool calls: 8\/8 · \d+\/s, ETA 0s/);
    expect(tty.stdout).toMatch(/8 tool calls · /);
    expect(replay(producer).stderr).toBe('');
  });

  it('prints a table with one line per call and a summary', () => {
    const run = replay(producer);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/decide_approval {2}policy=deny {2}runner=denied {2}agree/);
    expect(run.stdout).toMatch(/\d+ tool calls · \d+ agree · 0 differ or undecided · 0 row errors/);
  });

  it('names every artifact the producer skipped, and why, on stderr', async () => {
    const withBroken = join(dir, 'with-broken.json');
    await writeFile(
      withBroken,
      JSON.stringify(
        bundleOf(denyApprovals, {
          kind: 't1_predicate_tree',
          id: 'broken-regex',
          version: 1,
          body: { when: { field: 'tool_name', regex: '(' }, verdict: 'deny', reason: 'x' },
        }),
      ),
    );
    const run = replay(producer, [], withBroken);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/\(1 artifact skipped\)/);
    expect(run.stderr).toBe(
      'evals policy replay: the producer skipped artifact broken-regex (t1_predicate_tree): bad_pattern, so that rule decided nothing\n',
    );
  });

  it('refuses (exit 2) a bundle whose every artifact the producer skipped, naming each and why', async () => {
    const allBroken = join(dir, 'all-broken.json');
    const broken = (id: string) => ({
      kind: 't1_predicate_tree',
      id,
      version: 1,
      body: { when: { field: 'tool_name', regex: '(' }, verdict: 'deny', reason: 'x' },
    });
    await writeFile(allBroken, JSON.stringify(bundleOf(broken('one'), broken('two'))));
    const run = replay(producer, ['--json'], allBroken);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exitCode: 2,
      error: { code: 'paperclip_app_input_invalid' },
    });
    expect(run.stdout).not.toContain('"calls"');
    expect(run.stderr).toMatch(
      /skipped every artifact of .*all-broken\.json.*Skipped: one \(t1_predicate_tree\): bad_pattern; two \(t1_predicate_tree\): bad_pattern/,
    );
  });

  it('is a job error (exit 5) with the reason on stderr and no verdict on stdout when the producer drops a reply', async () => {
    const run = replay(await brokenProducer(dir, 'drops_a_reply'), ['--json']);
    expect(run.status).toBe(5);
    // --json: the failure as JSON (the report's schema, exit code, error with its issues), never a call.
    expect(JSON.parse(run.stdout)).toEqual({
      schema: 'paperclip-evals/policy-replay/v1',
      exitCode: 5,
      error: {
        code: 'paperclip_policy_job_failed',
        message: expect.stringMatching(/^policy replay job failed: no response for id r\d+/) as unknown,
        issues: [expect.objectContaining({ code: 'reply_missing', component: 'policy-producer' }) as unknown],
      },
    });
    expect(run.stderr).toMatch(
      /^evals policy replay: paperclip_policy_job_failed\n {2}reply_missing at policy-producer: no response for id r\d+/,
    );
  });

  // Lying producers: each writes well-formed frames, and each run ends in a job error (exit 5), never exit 0.
  const liars: [Defect, string][] = [
    ['undecided_empty', 'reply_undecided'],
    ['undecided_no_verdict', 'reply_undecided'],
    ['undecided_null_verdict', 'reply_undecided'],
    ['undecided_empty_verdict', 'reply_undecided'],
    ['duplicate_verdict', 'reply_duplicate_key'],
    ['duplicate_state_out', 'reply_duplicate_key'],
    ['malformed_digest', 'reply_malformed'],
    ['wrong_digest', 'bundle_digest_mismatch'],
    ['chatters_unknown_frames', 'reply_timeout'],
    ['chatters_stderr', 'reply_timeout'],
    ['huge_state', 'state_too_large'],
  ];
  it.each(liars)('a producer that %s is a job error %s (exit 5), no call on stdout', async (defect, code) => {
    const run = replay(await brokenProducer(dir, defect), ['--json', '--reply-timeout-ms', '1500']);
    expect(run.status).toBe(5);
    const report = JSON.parse(run.stdout) as { calls?: unknown; error: { issues: { code: string }[] } };
    expect(report.calls).toBeUndefined();
    expect(report.error.issues.map((issue) => issue.code)).toEqual([code]);
  });

  /** `evals policy replay` of the attempts with `binary`, on a terminal (script(1), 200 columns). */
  const onTerminal = (binary: { path: string; sha256: string }) => {
    const command = [
      process.execPath,
      EVALS_BIN,
      'policy',
      'replay',
      '--policy-binary',
      binary.path,
      '--sha256',
      binary.sha256,
      '--bundle',
      bundlePath,
      '--reply-timeout-ms',
      '5000',
      ATTEMPTS,
    ]
      .map((word) => `'${word.replaceAll("'", `'\\''`)}'`)
      .join(' ');
    return spawnSync('script', ['-qefc', `stty cols 200 rows 24; ${command}`, '/dev/null'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
  };

  it('a binary that never speaks: on a terminal, a line saying the handshake is waited for; then the hint', async () => {
    // `--policy-binary node` with the script argument forgotten: node reads stdin as a script.
    const mute = await writeExecutable(dir, 'mute.sh', `#!/bin/sh\nexec '${process.execPath}'\n`);
    const run = onTerminal(mute);
    expect(run.status, run.stdout).toBe(5);
    expect(run.stdout).toContain(
      "\r\u001b[Kpolicy replay: waiting for the producer's handshake… (none yet: is it an evaluate producer?)",
    );
    expect(run.stdout).not.toContain('its handshake arrived');
    expect(run.stdout).toMatch(/reply_timeout[^\n]*no handshake line ever arrived from it/);
  });

  it('a producer that handshakes and then answers nothing: the line says its first reply is waited for', async () => {
    const run = onTerminal(await brokenProducer(dir, 'never_flushes'));
    expect(run.status, run.stdout).toBe(5);
    expect(run.stdout).toContain(
      "\r\u001b[Kpolicy replay: waiting for the producer's first reply… (its handshake arrived; no call answered yet)",
    );
    expect(run.stdout).not.toContain("waiting for the producer's handshake…");
    expect(run.stdout).toMatch(/reply_timeout/);
  });

  it('refuses a binary whose digest differs (exit 4) before running it', () => {
    const run = replay({ path: producer.path, sha256: `sha256:${'1'.repeat(64)}` });
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(/digest_mismatch/);
  });

  it('reads attempts as ingest does: stdin, one replay per attempt, the input named when one is unreadable', async () => {
    const calls = (run: ReturnType<typeof replay>) => (JSON.parse(run.stdout) as { calls: unknown[] }).calls;
    const solved = join(ATTEMPTS, 'denied-tool-call.json');
    const once = replay(producer, ['--json'], bundlePath, [solved]);
    expect(once.status).toBe(0);
    expect(calls(once).length).toBeGreaterThan(0);
    // The same attempt twice (and once more through stdin) is replayed once.
    const twice = replay(
      producer,
      ['--json'],
      bundlePath,
      [solved, solved, '-'],
      readFileSync(solved, 'utf8'),
    );
    expect(twice.status).toBe(0);
    expect(calls(twice)).toEqual(calls(once));

    const invalid = join(REPO_ROOT, 'fixtures/attempts/invalid/attempt-id-missing.json');
    const refused = replay(producer, ['--json'], bundlePath, [solved, invalid]);
    expect(refused.status).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      exitCode: 2,
      error: {
        code: 'paperclip_native_execution_invalid',
        message: expect.stringContaining(invalid) as unknown,
      },
    });
    expect(refused.stderr).toContain(`paperclip_native_execution_invalid: ${invalid}: `);

    const empty = await mkdtemp(join(dir, 'empty-'));
    const none = replay(producer, [], bundlePath, [empty]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`${empty}: no *.json files in this directory`);
  });

  it('refuses a bundle it cannot load (exit 2)', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"schema":"something else"}');
    const run = replay(producer, [], bad);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/paperclip_policy_bundle_invalid/);
  });
});
