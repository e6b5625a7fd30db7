// Eval-session artifacts through the real CLI (bin/evals.js, built): the reference runner's built
// paperclip-runner-eval-session bin (its dist, run by node) writes a success artifact, a hanging
// driver's, a budget overrun's and a runnerd digest mismatch's; `evals validate --json` reads each
// by its schema (the bundle beside it, by digest) and refuses a tampered bundle or a mismatched
// one; `evals ingest` stores them (the qualified runnerd enforced with --runnerd-sha256) and
// `evals report --format json` shows cost provenance and the infrastructure outcomes. Every JSON
// printed is checked against its schema in the one registry. (The packed, offline-installed bin
// is exercised by packages/reference-runner/test/clean-consumers.e2e.test.ts.)
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { evalSessionRequest } from '@paperclip-evals/test-kit/eval-session-request';

const REPO = new URL('../../../', import.meta.url).pathname;
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const BIN = join(REPO, 'packages/reference-runner/dist/cli/eval-session.js');
const RUNNERD_MAIN = join(REPO, 'packages/reference-runner/dist/runnerd/main.js');
const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

let dir = '';
let runnerd = '';
let runnerdSha256 = '';

const evals = (args: readonly string[]): { status: number | null; stdout: string; stderr: string } => {
  const result = spawnSync(process.execPath, [EVALS, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

const request = (attemptId: string, edit: Record<string, unknown> = {}): Record<string, unknown> =>
  evalSessionRequest(
    { attemptId, runnerd: { path: runnerd, sha256: runnerdSha256 }, runId: 'run_cli' },
    edit,
  );

/** One session of the built bin into dir/artifacts/<attemptId>.json; its exit code. */
function session(value: Record<string, unknown>): number | null {
  const requestPath = join(dir, `${String(value.attemptId)}.request.json`);
  writeFileSync(requestPath, JSON.stringify(value));
  const output = join(dir, 'artifacts', `${String(value.attemptId)}.json`);
  return spawnSync(process.execPath, [BIN, '--request', requestPath, '--output', output], {
    env: {},
    timeout: 60_000,
  }).status;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-eval-session-'));
  mkdirSync(join(dir, 'artifacts'));
  // runnerd: the reference runner's runnerd, unbundled, behind a #! script (it runs with no PATH).
  runnerd = join(dir, 'paperclip-runnerd');
  writeFileSync(
    runnerd,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(RUNNERD_MAIN)} "$@"\n`,
  );
  chmodSync(runnerd, 0o755);
  runnerdSha256 = sha256(readFileSync(runnerd));
  expect(session(request('attempt_ok'))).toBe(0);
  expect(
    session(
      request('attempt_hang', {
        session: { runId: 'run_cli', behaviour: 'hang' },
        limits: { turnTimeoutMs: 300, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 },
      }),
    ),
  ).toBe(2);
  expect(
    session(
      request('attempt_budget', {
        limits: { turnTimeoutMs: 30_000, maxAgentTurns: 50, maxEstimatedCostNanodollars: 1 },
      }),
    ),
  ).toBe(2);
  expect(
    session(request('attempt_mismatch', { runnerd: { path: runnerd, sha256: `sha256:${'0'.repeat(64)}` } })),
  ).toBe(2);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const artifact = (name: string): string => join(dir, 'artifacts', `${name}.json`);

describe('evals validate on eval-session artifacts', () => {
  it('reads each by its schema: valid with its outcome, the mismatch alone (no bundle) too; the JSON holds to its schema', () => {
    const run = evals([
      'validate',
      ...['attempt_ok', 'attempt_hang', 'attempt_budget', 'attempt_mismatch'].map(artifact),
      '--json',
    ]);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { files: Record<string, unknown>[] };
    expect(schemaErrors(SCHEMA('validate-report'), report)).toEqual([]);
    const [ok, hang, budget, mismatch] = report.files;
    expect(ok).toMatchObject({
      status: 'valid',
      attempt: { runId: 'run_cli', caseId: 'case_summary', attemptId: 'attempt_ok' },
      evalSession: { provider: 'paperclip_deterministic', infrastructureFailure: null },
    });
    expect((ok!.evalSession as { artifactSha256: string }).artifactSha256).toBe(
      sha256(readFileSync(artifact('attempt_ok'))),
    );
    expect(hang).toMatchObject({
      status: 'valid',
      evalSession: { infrastructureFailure: { class: 'provider_turn_timeout', retryable: true } },
    });
    expect(budget).toMatchObject({
      status: 'valid',
      evalSession: { infrastructureFailure: { class: 'provider_budget_reached', retryable: false } },
    });
    // An infrastructure failure with no bundle is a complete attempt record (issue 17).
    expect(mismatch).toMatchObject({
      status: 'valid',
      events: 0,
      attempt: { runId: 'eval-session', caseId: 'eval-session:no-case', attemptId: 'attempt_mismatch' },
      evalSession: { infrastructureFailure: { class: 'eval_orchestration_failure', retryable: false } },
    });
  });

  it('refuses an artifact whose bundle was changed after it was written', () => {
    const copy = join(dir, 'tampered');
    cpSync(join(dir, 'artifacts'), copy, { recursive: true });
    const bundle = join(copy, 'attempt_ok', 'native-execution.json');
    writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('"run_cli"', '"run_clj"'));
    const run = evals(['validate', join(copy, 'attempt_ok.json'), '--json']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      files: [
        { status: 'invalid', issues: [expect.objectContaining({ code: 'native_bundle_digest_mismatch' })] },
      ],
    });
  });
});

describe('evals validate judges an artifact as ingest does', () => {
  it("refuses an artifact whose bundle's transcript file was cut short, as ingest does (artifact_digest_mismatch)", () => {
    const copy = join(dir, 'cut-transcript');
    cpSync(join(dir, 'artifacts'), copy, { recursive: true });
    const transcripts = readdirSync(join(copy, 'attempt_ok'), { recursive: true, encoding: 'utf8' }).filter(
      (name) => name.endsWith('.jsonl'),
    );
    expect(transcripts.length).toBeGreaterThan(0);
    const transcript = join(copy, 'attempt_ok', transcripts[0]!);
    writeFileSync(transcript, readFileSync(transcript).subarray(0, 100));
    const validated = evals(['validate', join(copy, 'attempt_ok.json'), '--json']);
    expect(validated.status, validated.stdout).toBe(1);
    const report = JSON.parse(validated.stdout) as {
      files: { status: string; issues?: { code: string }[] }[];
    };
    expect(report.files[0]?.status).toBe('invalid');
    expect(report.files[0]?.issues?.map((issue) => issue.code)).toContain('artifact_digest_mismatch');
    expect(schemaErrors(SCHEMA('validate-report'), report)).toEqual([]);
    const ingested = evals([
      'ingest',
      join(copy, 'attempt_ok.json'),
      '--store',
      `sqlite:${join(copy, 'e.sqlite')}`,
    ]);
    expect(ingested.status).toBe(1);
    expect(ingested.stdout + ingested.stderr).toContain('artifact_digest_mismatch');
  });
});

describe('evals ingest and report on eval-session artifacts', () => {
  it('refuses every attempt of another runnerd than the qualified one, and stores nothing of them', () => {
    const store = `sqlite:${join(dir, 'other.sqlite')}`;
    const run = evals([
      'ingest',
      artifact('attempt_ok'),
      '--store',
      store,
      '--runnerd-sha256',
      `sha256:${'9'.repeat(64)}`,
      '--json',
    ]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      inserted: 0,
      invalid: [{ issues: [expect.objectContaining({ code: 'runnerd_not_qualified' })] }],
    });
  });

  it('stores them with cost provenance and the infrastructure outcomes the report shows', () => {
    const store = `sqlite:${join(dir, 'evalbook.sqlite')}`;
    const inputs = ['attempt_ok', 'attempt_hang', 'attempt_budget'].map(artifact);
    const ingest = evals([
      'ingest',
      ...inputs,
      '--store',
      store,
      '--runnerd-sha256',
      runnerdSha256,
      '--json',
    ]);
    expect(ingest.status, ingest.stderr).toBe(0);
    const summary = JSON.parse(ingest.stdout) as Record<string, unknown>;
    expect(schemaErrors(SCHEMA('ingest-report'), summary)).toEqual([]);
    expect(summary).toMatchObject({ inserted: 3, artifacts: { verified: 3, unverified: 0, mismatched: 0 } });
    // Again: the same attempts, duplicates.
    expect(JSON.parse(evals(['ingest', ...inputs, '--store', store, '--json']).stdout)).toMatchObject({
      inserted: 0,
      duplicates: 3,
    });
    const report = evals(['report', '--store', store, '--format', 'json', '--out', '-']);
    expect(report.status, report.stderr).toBe(0);
    const json = JSON.parse(report.stdout) as { attempts: Record<string, unknown>[] };
    expect(schemaErrors(SCHEMA('report'), json)).toEqual([]);
    const byId = new Map(json.attempts.map((attempt) => [attempt.attemptId, attempt]));
    expect(byId.get('attempt_ok')).toMatchObject({
      status: 'solved',
      evalSession: {
        provider: 'paperclip_deterministic',
        driver: 'paperclip_deterministic_harness',
        runnerdSha256,
      },
      cost: {
        providerReportedNanodollars: null,
        estimateSource: 'runner',
        pricingVersion: 'paperclip-deterministic-list-prices-2026-12-01',
        coverage: 'estimated',
        notes: expect.arrayContaining(['provider_cost_null', 'provider_cost_unavailable']) as unknown,
      },
    });
    const cost = byId.get('attempt_ok')!.cost as Record<string, number>;
    expect(cost.legacyLedgerNanodollars).toBeGreaterThan(0);
    expect(cost.effectiveNanodollars).toBe(cost.estimatedNanodollars); // the legacy amount is never added
    expect(byId.get('attempt_hang')).toMatchObject({
      status: 'errored',
      statusReason: 'infrastructure: provider_turn_timeout (retryable)',
      failure: { classification: 'infrastructure', code: 'provider_turn_timeout', retryable: true },
      evalSession: {
        infrastructureFailure: {
          class: 'provider_turn_timeout',
          category: 'provider_lifecycle',
          retryable: true,
        },
      },
    });
    expect(byId.get('attempt_budget')).toMatchObject({
      status: 'over_budget',
      statusReason: 'provider_budget_reached (not retryable)',
      failure: { classification: 'budget', code: 'provider_budget_reached', retryable: false },
    });
    const markdown = evals(['report', '--store', store, '--format', 'md']);
    expect(markdown.stdout).toContain('3 of 3 attempts priced (0 provider-reported, 3 estimated)');
  });

  it('an artifact copied away from its bundle is refused, never stored', () => {
    const lone = join(dir, 'lone');
    mkdirSync(lone);
    copyFileSync(artifact('attempt_ok'), join(lone, 'attempt_ok.json'));
    const run = evals([
      'ingest',
      join(lone, 'attempt_ok.json'),
      '--store',
      `sqlite:${join(lone, 'e.sqlite')}`,
      '--json',
    ]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      invalid: [{ issues: [expect.objectContaining({ code: 'native_bundle_missing' })] }],
    });
  });
});

// The artifacts' folder walked whole, as a campaign's work folder is: each bundle (in its try's
// folder, which sorts before the artifact beside it) is met bare as well as through its artifact.
describe('evals ingest of the artifacts’ folder walked whole', () => {
  it('counts each artifact’s own bundle once, read through its artifact (not a duplicate, not unverified), and refuses the other JSON naming its schema', () => {
    const withBundle = ['attempt_ok', 'attempt_hang', 'attempt_budget', 'attempt_mismatch'].filter(
      (name) =>
        (JSON.parse(readFileSync(artifact(name), 'utf8')) as { nativeExecution?: unknown })
          .nativeExecution !== undefined,
    );
    expect(withBundle.length).toBeGreaterThan(0);
    const store = `sqlite:${join(dir, 'walked.sqlite')}`;
    const run = evals(['ingest', join(dir, 'artifacts'), '--store', store, '--json']);
    const summary = JSON.parse(run.stdout) as {
      inserted: number;
      duplicates: number;
      artifactBundles: number;
      artifacts: { verified: number; unverified: number };
      invalid: { issues: { code: string; message: string; expected: unknown }[] }[];
    };
    expect(schemaErrors(SCHEMA('ingest-report'), summary)).toEqual([]);
    expect(summary).toMatchObject({ inserted: 4, duplicates: 0, artifactBundles: withBundle.length });
    // every attempt read once: the bundles' bare readings add no unverified attempt
    expect(summary.artifacts.verified + summary.artifacts.unverified).toBe(4);
    for (const invalid of summary.invalid) {
      expect(invalid.issues).toHaveLength(1);
      expect(invalid.issues[0]).toMatchObject({
        code: 'native_schema_unknown',
        expected: 'paperclip-runner/native-execution/v1 or paperclip-runner/eval-session-artifact/v1',
      });
      expect(invalid.issues[0]?.message).toMatch(/^this file declares (schema "[^"]+"|no schema)/);
    }
    // Again, in words: the store holds them now (the artifacts are the duplicates).
    const again = evals(['ingest', join(dir, 'artifacts'), '--store', store]);
    expect(again.stdout).toMatch(/: 0 inserted, 4 duplicate, /);
    expect(again.stdout).toContain(
      `${withBundle.length} bundle(s) already read through their eval-session artifacts in this run`,
    );
  });
});
