// Issue 17 through the real CLI (bin/evals.js, built): a folder of eval-session artifacts shaped as
// upstream's paperclip-runner-eval-session writes them — no native-execution bundle beside any —
// is valid for `evals validate`, stored by `evals ingest`, and `evals report --format json` gives
// each its honest status (an infrastructure failure errored or over_budget with its retryability, a
// failed turn unsolved, any other turn incomplete: never solved) and its cost with provenance
// (omitted usage is unknown, never $0). Every JSON printed is checked against its schema.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { upstreamRows, writeUpstreamArtifacts } from '@paperclip-evals/test-kit/upstream-artifacts';

const REPO = new URL('../../../', import.meta.url).pathname;
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;

const dir = mkdtempSync(join(tmpdir(), 'evals-upstream-artifacts-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const evals = (args: readonly string[]): { status: number | null; stdout: string; stderr: string } => {
  const result = spawnSync(process.execPath, [EVALS, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

describe('a folder of upstream-shaped eval-session artifacts, no bundle beside them', () => {
  const rows = upstreamRows();
  const runs = join(dir, 'runs');
  writeUpstreamArtifacts(runs, rows);
  const store = `sqlite:${join(dir, 'evalbook.sqlite')}`;

  it('validates every one (exit 0), each named as an artifact with no bundle', () => {
    const run = evals(['validate', runs, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: unknown; files: Record<string, unknown>[] };
    expect(schemaErrors(SCHEMA('validate-report'), report)).toEqual([]);
    expect(report.summary).toEqual({ valid: rows.length, invalid: 0, unreadable: 0 });
    for (const file of report.files)
      expect(file).toMatchObject({ status: 'valid', events: 0, attempt: { caseId: 'eval-session:no-case' } });
    const text = evals(['validate', runs]);
    expect(text.stdout).toContain('no bundle beside it (no native-execution evidence: never scored solved)');
  });

  it('ingests them all and the report gives each its honest status and cost provenance', () => {
    const ingest = evals(['ingest', runs, '--store', store, '--json']);
    expect(ingest.status, ingest.stderr).toBe(0);
    const summary = JSON.parse(ingest.stdout) as Record<string, unknown>;
    expect(schemaErrors(SCHEMA('ingest-report'), summary)).toEqual([]);
    expect(summary).toMatchObject({ inserted: rows.length, invalid: [] });

    const report = evals(['report', '--store', store, '--format', 'json', '--out', '-']);
    expect(report.status, report.stderr).toBe(0);
    const json = JSON.parse(report.stdout) as { attempts: Record<string, unknown>[] };
    expect(schemaErrors(SCHEMA('report'), json)).toEqual([]);
    const byId = new Map(json.attempts.map((attempt) => [attempt.attemptId, attempt]));
    expect(byId.size).toBe(rows.length);
    for (const row of rows) {
      const attempt = byId.get(row.artifact.attemptId);
      expect(attempt, row.name).toMatchObject({
        status: row.status,
        evalSession: { provider: 'codex', driver: 'codex_app_server', requestedModel: 'gpt-5.5' },
        cost: {
          providerReportedNanodollars: null,
          coverage: row.coverage,
          effectiveNanodollars: row.effectiveNanodollars,
        },
      });
      expect(String(attempt?.statusReason), row.name).toContain(row.reason);
    }
    expect(json.attempts.filter((attempt) => attempt.status === 'solved')).toEqual([]);
  });
});
