// An llm_judge case check at ingest, end to end: the real `evals ingest` process calls a real HTTP
// server on 127.0.0.1 playing an OpenAI-compatible provider (configured by the engine's
// EVALS_ENGINE_PROVIDER_* variables), stores the judge's verdict as a layer-6 score row, a malformed
// reply as not_evaluated (never a pass), reports the model calls and their cost, and calls no model
// again when the same attempts are ingested a second time (they are duplicates).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FakeProvider, chatReply } from '@paperclip-evals/test-kit/fake-provider';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

let dir: string;
let provider: FakeProvider;

/** Runs the CLI without blocking this process (the fake provider answers from it). */
function evals(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(EVALS, args, { cwd: dir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      resolve({ status, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  provider = await FakeProvider.start();
  dir = mkdtempSync(join(tmpdir(), 'evals-case-judge-e2e-'));
  mkdirSync(join(dir, 'runs'));
  const sample = syntheticAttempt({}) as { input: { caseSha256: string; configSha256: string } };
  writeFileSync(
    join(dir, 'evalbook.json'),
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'judged',
      cases: [
        {
          id: 'case_synthetic',
          sha256: sample.input.caseSha256,
          checks: [
            { id: 'synthetic-check' },
            {
              id: 'judge',
              type: 'llm_judge',
              spec: { target: 'output', rubric: 'did it finish?', threshold: 0.7 },
            },
          ],
        },
      ],
      configs: [{ id: 'config_synthetic', sha256: sample.input.configSha256, model: 'm', driver: 'd' }],
    }),
  );
  for (const attemptId of ['a0', 'a1'])
    writeFileSync(join(dir, 'runs', `${attemptId}.json`), JSON.stringify(syntheticAttempt({ attemptId })));
});
afterAll(async () => {
  await provider.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an llm_judge case check at ingest', () => {
  it('asks the provider once per new attempt, stores its verdict, and never again for duplicates', async () => {
    provider.script(
      '/chat/completions',
      chatReply('{"score": 0.9, "reason": "finished and said so"}'),
      chatReply('Looks fine to me!'),
    );
    const env = {
      EVALS_ENGINE_PROVIDER_BASE_URL: provider.baseUrl,
      EVALS_ENGINE_PROVIDER_API_KEY: 'sk-test',
      EVALS_ENGINE_JUDGE_MODEL: 'judge-model',
      EVALS_ENGINE_MODEL_PRICES: JSON.stringify({
        'judge-model': { input_usd_per_mtok: 2, output_usd_per_mtok: 8 },
      }),
    };
    const args = ['ingest', '--store', 'sqlite:book.sqlite', '--env', 'evalbook.json', 'runs'];
    const first = await evals(args, env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/2 inserted/);
    expect(first.stdout).toMatch(/model calls for case checks: 2 \(2 judge\), \$0\.0056(?![0-9])/);
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[0]).toMatchObject({
      authorization: 'Bearer sk-test',
      body: { model: 'judge-model' },
    });

    const report = await evals(['report', '--format', 'json', '--store', 'sqlite:book.sqlite']);
    const { attempts } = JSON.parse(report.stdout) as {
      attempts: {
        attemptId: string;
        status: string;
        checks: {
          checkId: string;
          layer: number | null;
          status: string;
          score: number | null;
          reason: string | null;
        }[];
      }[];
    };
    expect(
      attempts.map((attempt) => [
        attempt.attemptId,
        attempt.status,
        attempt.checks[0]?.status,
        attempt.checks[0]?.layer,
        attempt.checks[0]?.score,
      ]),
    ).toEqual([
      ['a0', 'solved', 'pass', 6, 0.9],
      ['a1', 'incomplete', 'not_evaluated', 6, null],
    ]);
    expect(attempts[1]?.checks[0]?.reason).toMatch(/^judge_malformed: /);

    const again = await evals(args, env);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/0 inserted, 2 duplicate/);
    expect(again.stdout).toMatch(/model calls for case checks: 0 \(0 judge\)/);
    expect(provider.requests).toHaveLength(2);
  });

  it('refuses an unusable provider setting as a usage error (exit 2) before reading anything', async () => {
    const refused = await evals(
      ['ingest', '--store', 'sqlite:other.sqlite', '--env', 'evalbook.json', 'runs'],
      {
        EVALS_ENGINE_PROVIDER_BASE_URL: 'ftp://nowhere',
      },
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/EVALS_ENGINE_PROVIDER_BASE_URL must be an http\(s\) URL/);
  });
});
