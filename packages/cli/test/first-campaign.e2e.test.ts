// A new user's first campaign, end to end with the real binaries: the reference runner's release
// is built as the README's demo builds it (check-clean-consumers with an output folder: the packed
// tarball, a release paperclip-runnerd, SHA256SUMS; once per test run, by the test kit's
// referenceRelease, this file getting its own copy), `evals init` writes the starter suite into an
// empty folder, and `evals run` with the generated file as is — qualifying the release itself, as a
// first run does — runs every planned attempt through the release's own eval-session: complete,
// every attempt passed, every try priced (the stand-in provider's pinned model, in the starter's
// pricing table), nothing failed.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { referenceRelease } from '@paperclip-evals/test-kit/reference-release';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, env = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

let scratch: string;
let release: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'first-campaign-'));
  release = join(scratch, 'release');
  const built = await referenceRelease(release);
  expect(built.code, built.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface CampaignRecord {
  complete: boolean;
  allPassed: boolean;
  totals: { planned: number; passed: number; tries: number };
  cost: { observedNanodollars: number; coverage: { priced: number; unpriced: number } };
}

describe("evals init's starter suite on the reference release", () => {
  it('runs as is: complete, every attempt passed, every try priced', async () => {
    const dir = await mkdtemp(join(scratch, 'user-'));
    const init = await run(process.execPath, [EVALS_BIN, 'init'], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('evals run --release-dir RELEASE --env evalbook.yaml');
    const result = await run(
      process.execPath,
      [
        EVALS_BIN,
        'run',
        '--release-dir',
        release,
        '--env',
        'evalbook.yaml',
        '--campaign',
        'first-1',
        '--out',
        'campaign.json',
      ],
      dir,
    );
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('campaign first-1: complete');
    expect(result.stdout).not.toContain('✗');
    const record = JSON.parse(await readFile(join(dir, 'campaign.json'), 'utf8')) as CampaignRecord;
    expect(record.complete).toBe(true);
    expect(record.allPassed).toBe(true);
    expect(record.totals.passed).toBe(record.totals.planned);
    expect(record.totals.planned).toBeGreaterThan(0);
    expect(record.cost.coverage).toEqual({ priced: record.totals.tries, unpriced: 0 });
    expect(record.cost.observedNanodollars).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/observed \$[0-9.]+ \(3 of 3 tries priced, /);
  }, 240_000);
});
