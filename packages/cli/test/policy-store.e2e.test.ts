// `evals policy replay --store` end to end with the real `evals` binary and the real producer
// (through a verified wrapper script): the attempt fixtures ingested into a SQLite Evalbook, replayed
// from the store, their verdicts stored; `evals report` shows the policy section with the right
// counts; the same replay again changes nothing (duplicates); attempt files not in the ledger are
// refused with the reason; a store that cannot be opened is a usage error (exit 2).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';
import { bundleOf, denyApprovals } from '@paperclip-evals/test-kit/policy-bundles';
import { UNFAMILIAR_DECISION_JSON, brokenProducer, realProducer } from '@paperclip-evals/test-kit/producers';

import { firstRunSpawned } from './support/evals-in-process.ts';

import type { Executable } from '@paperclip-evals/test-kit/producers';

const ATTEMPTS = join(REPO_ROOT, 'fixtures/attempts/valid');
/** The runner denied decide_approval (agree); the policy also denies the solved attempt's reads (the runner allowed them). */
const POLICY = bundleOf(denyApprovals, {
  kind: 't1_predicate_tree',
  id: 'solved-reads-nothing',
  version: 1,
  body: {
    when: { field: 'session.attempt_id', equals: 'attempt_solved_0001' },
    verdict: 'deny',
    reason: 'this attempt may not read',
  },
});

interface Stored {
  url: string;
  inserted: number;
  duplicate: number;
  conflict: number;
  refused: number;
}
interface ReplayReport {
  exitCode: number;
  bundleDigest: string;
  calls: { agreement: string }[];
  stored?: Stored;
}
interface PolicyStat {
  configId: string;
  policyDigest: string;
  toolCalls: number;
  counts: Record<string, number>;
}

let dir: string;
let bundlePath: string;
let producer: Executable;

const evals = (args: string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8' });
/**
 * `evals ingest` and `evals report`: the first run of each the binary, the later ones its program in
 * this process (firstRunSpawned). `policy replay` is always the binary (`evals`, above): its
 * producer's process group is released when that child closes.
 */
const reading = firstRunSpawned(
  (args) => {
    const result = evals([...args]);
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);
const replay = (store: string, inputs: string[] = []) =>
  evals([
    'policy',
    'replay',
    '--policy-binary',
    producer.path,
    '--sha256',
    producer.sha256,
    '--bundle',
    bundlePath,
    '--store',
    store,
    '--json',
    ...inputs,
  ]);
const policySection = async (store: string): Promise<PolicyStat[] | null> => {
  const report = await reading(['report', '--format', 'json', '--store', store]);
  expect(report.stderr).toBe('');
  expect(report.status).toBe(0);
  return (JSON.parse(report.stdout) as { summary: { policy: PolicyStat[] | null } }).summary.policy;
};

/** The stored verdicts' decision columns, read with the store's own SQLite driver. */
function storedVerdicts(file: string): Record<string, unknown>[] {
  type Database = { prepare(sql: string): { all(): Record<string, unknown>[] }; close(): void };
  const open = createRequire(join(REPO_ROOT, 'packages/evalbook/package.json'))('better-sqlite3') as new (
    path: string,
    options: { readonly: boolean },
  ) => Database;
  const db = new open(file, { readonly: true });
  try {
    return db
      .prepare(
        'SELECT decision, rule_id, reason, agreement FROM policy_verdicts ORDER BY decision, rule_id DESC, call_id',
      )
      .all();
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-policy-store-e2e-'));
  bundlePath = join(dir, 'policy.json');
  await writeFile(bundlePath, JSON.stringify(POLICY));
  producer = await realProducer(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evals policy replay --store', () => {
  it('keeps a decision with an unfamiliar verdict whole, stores it as received, reports it, and exits 1 (never 0)', async () => {
    const unfamiliar = await brokenProducer(dir, 'unfamiliar_verdict');
    const file = join(dir, 'unfamiliar.sqlite');
    const store = `sqlite:${file}`;
    expect((await reading(['ingest', ATTEMPTS, '--store', store])).status).toBe(0);
    const run = () =>
      evals([
        'policy',
        'replay',
        '--policy-binary',
        unfamiliar.path,
        '--sha256',
        unfamiliar.sha256,
        '--bundle',
        bundlePath,
        '--initial-state',
        'unavailable',
        '--store',
        store,
        '--json',
      ]);
    const first = run();
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toMatch(
      /1 call\(s\) were decided with a verdict Evals does not know \("escalate"; it knows allow, deny, ask\)/,
    );
    const report = JSON.parse(first.stdout) as {
      unfamiliarVerdicts: number;
      calls: { verdict: string | null; agreement: string; decision: Record<string, unknown> | null }[];
    };
    expect(report.unfamiliarVerdicts).toBe(1);
    const odd = report.calls.filter((call) => call.agreement === 'policy_verdict_unfamiliar');
    expect(odd).toHaveLength(1);
    expect(odd[0]).toMatchObject({
      verdict: 'escalate',
      decision: { rule_id: 'r9', x_future: { tags: ['a'] } },
    });
    expect(report.calls.filter((call) => call.agreement === 'policy_error')).toEqual([]);

    // Stored as received: the verdict, and the whole Decision byte for byte (the 20-digit number intact).
    const open = createRequire(join(REPO_ROOT, 'packages/evalbook/package.json'))('better-sqlite3') as new (
      path: string,
      options: { readonly: boolean },
    ) => { prepare(sql: string): { all(): Record<string, unknown>[] }; close(): void };
    const db = new open(file, { readonly: true });
    try {
      expect(
        db
          .prepare(
            "SELECT decision, verdict, decision_json FROM policy_verdicts WHERE agreement = 'policy_verdict_unfamiliar'",
          )
          .all(),
      ).toEqual([{ decision: null, verdict: 'escalate', decision_json: UNFAMILIAR_DECISION_JSON }]);
      expect(
        db
          .prepare(
            "SELECT DISTINCT decision_json FROM policy_verdicts WHERE agreement != 'policy_verdict_unfamiliar'",
          )
          .all(),
      ).toEqual([{ decision_json: '{"verdict":"allow"}' }]);
    } finally {
      db.close();
    }
    expect((await policySection(store))?.[0]?.counts.policy_verdict_unfamiliar).toBe(1);
    const markdown = (await reading(['report', '--format', 'md', '--store', store])).stdout;
    expect(markdown).toContain('| Unfamiliar verdict |');
    // The same replay again: duplicates, and still not a success.
    const again = run();
    expect(again.status).toBe(1);
    expect((JSON.parse(again.stdout) as { stored: { duplicate: number } }).stored.duplicate).toBe(
      report.calls.length,
    );
  });

  it('replays the ledger, stores every verdict, and the report counts them; a replay again is all duplicates', async () => {
    const store = 'sqlite:book.sqlite';
    expect((await reading(['ingest', ATTEMPTS, '--store', store])).status).toBe(0);
    expect(await policySection(store)).toBeNull(); // attempts, but no verdicts yet

    const first = replay(store);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const report = JSON.parse(first.stdout) as ReplayReport;
    expect(report.exitCode).toBe(0);
    expect(report.calls).toHaveLength(8);
    expect(report.stored).toEqual({ url: store, inserted: 8, duplicate: 0, conflict: 0, refused: 0 });

    const expected: PolicyStat[] = [
      {
        configId: 'config_synthetic',
        policyDigest: report.bundleDigest,
        toolCalls: 8,
        counts: {
          agree: 5,
          policy_denies_runner_allowed: 3,
          runner_denied_policy_allows: 0,
          policy_error: 0,
          policy_verdict_unfamiliar: 0,
          no_recorded_outcome: 0,
        },
      },
    ];
    expect(await policySection(store)).toEqual(expected);
    // Each stored verdict carries the decision's rule id and reason text (null only when the bundle
    // default decided, which has its own reason).
    expect(storedVerdicts(join(dir, 'book.sqlite'))).toEqual([
      ...Array.from({ length: 4 }, () => ({
        decision: 'allow',
        rule_id: null,
        reason: 'no artifact decided: the bundle default applies',
        agreement: 'agree',
      })),
      ...Array.from({ length: 3 }, () => ({
        decision: 'deny',
        rule_id: 'solved-reads-nothing',
        reason: 'this attempt may not read',
        agreement: 'policy_denies_runner_allowed',
      })),
      {
        decision: 'deny',
        rule_id: 'no-approvals',
        reason: 'approvals need a human',
        agreement: 'agree',
      },
    ]);

    const again = replay(store);
    expect(again.status).toBe(0);
    expect((JSON.parse(again.stdout) as ReplayReport).exitCode).toBe(0);
    expect((JSON.parse(again.stdout) as ReplayReport).stored).toEqual({
      url: store,
      inserted: 0,
      duplicate: 8,
      conflict: 0,
      refused: 0,
    });
    expect(await policySection(store)).toEqual(expected);
  });

  it('shows the policy section in the Markdown and HTML reports', async () => {
    const store = 'sqlite:book.sqlite'; // written by the test above
    const markdown = await reading(['report', '--format', 'md', '--store', store]);
    expect(markdown.status).toBe(0);
    expect(markdown.stdout).toContain('### Policy replay');
    expect(markdown.stdout).toMatch(
      /\| config_synthetic \| `sha256:[0-9a-f]{64}` \| 8 \| 5 \| 3 \| 0 \| 0 \| 0 \|/,
    );
    const html = await reading(['report', '--format', 'html', '--store', store]);
    expect(html.status).toBe(0);
    expect(html.stdout).toContain('<section id="policy"');
    expect(html.stdout).toMatch(
      /data-config="config_synthetic" data-policy-digest="sha256:[0-9a-f]{64}" data-tool-calls="8" data-agree="5" data-policy-denies-runner-allowed="3"/,
    );
  });

  it('stores verdicts only for attempt files whose attempt is in the ledger, and says why for the rest', async () => {
    const one = join(dir, 'one');
    await mkdir(one);
    await copyFile(join(ATTEMPTS, 'denied-tool-call.json'), join(one, 'denied-tool-call.json'));
    const store = 'sqlite:partial.sqlite';
    expect((await reading(['ingest', one, '--store', store])).status).toBe(0);
    const run = replay(store, [ATTEMPTS]);
    // Refused verdicts are rejected, as ingest's refused inputs are: exit 1, never 0.
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exitCode: 1,
      stored: { inserted: 2, refused: 6, conflict: 0 },
    });
    expect(run.stderr).toMatch(
      /not stored: attempt run_synthetic\/case_synthetic\/config_synthetic\/attempt_solved_0001 is not in the ledger/,
    );
    expect(run.stderr).toMatch(
      /0 verdict\(s\) in conflict .* and 6 refused by the store \(not stored\): exit 1/,
    );
    expect((await policySection(store))?.map((stat) => stat.toolCalls)).toEqual([2]);
  });

  it('exits 1 when the store kept a conflicting verdict (another producer, the same bundle digest), as ingest does for a conflict', async () => {
    const store = 'sqlite:conflict.sqlite';
    expect((await reading(['ingest', ATTEMPTS, '--store', store])).status).toBe(0);
    const first = replay(store);
    expect(first.status, first.stderr).toBe(0);
    // Allows every call with the same bundle digest: the calls the real producer denied now differ.
    const allowing = await brokenProducer(dir, 'none');
    const run = evals([
      'policy',
      'replay',
      '--policy-binary',
      allowing.path,
      '--sha256',
      allowing.sha256,
      '--bundle',
      bundlePath,
      '--store',
      store,
      '--json',
    ]);
    expect(run.status, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as ReplayReport;
    expect(report.exitCode).toBe(1);
    expect(report.stored?.conflict).toBeGreaterThan(0);
    expect(report.stored).toMatchObject({ inserted: 0, refused: 0 });
    expect(run.stderr).toMatch(/conflict: .* already has a different verdict for this policy/);
    expect(run.stderr).toMatch(
      /verdict\(s\) in conflict with a stored one \(the stored one kept\) .*: exit 1/,
    );
    // Without --json too: the same exit code.
    const plain = evals([
      'policy',
      'replay',
      '--policy-binary',
      allowing.path,
      '--sha256',
      allowing.sha256,
      '--bundle',
      bundlePath,
      '--store',
      store,
    ]);
    expect(plain.status).toBe(1);
  });

  it('refuses a store that does not exist (exit 2) without running the producer', () => {
    const run = replay('sqlite:missing.sqlite');
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exitCode: 2,
      error: { message: expect.stringMatching(/no Evalbook at missing\.sqlite/) as unknown },
    });
    expect(run.stderr).toMatch(/no Evalbook at missing\.sqlite/);
  });

  it('needs attempts or a store (exit 2)', () => {
    const run = evals([
      'policy',
      'replay',
      '--policy-binary',
      producer.path,
      '--sha256',
      producer.sha256,
      '--bundle',
      bundlePath,
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/name attempt files or directories, or --store/);
  });
});
