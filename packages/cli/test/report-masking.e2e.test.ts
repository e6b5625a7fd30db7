// `evals report` writes no credential in any format (a new user's review: `report --format html`
// and `report --attempt` showed an agent's OPENAI_API_KEY and a GitHub token verbatim, where
// `publish` masked them). Bundles carry an `sk-proj-…` key, a `ghp_…` token, an `AKIA…` key id and a
// `password=…` in each place a bundle holds free text — the agent's progress text, a tool call's
// input, its result, the proposed result's summary, the failure's message — and no output of
// `report` (json, md, html, junit, csv) nor `report --attempt` holds one; a property moves one secret
// over those places. The first run of each command is the binary, later ones its program in this
// process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

/** Each secret as the bundle writes it, and what must never be in an output (its secret part). */
const SECRETS = [
  { written: 'OPENAI_API_KEY=sk-proj-Zq8vT3cRw9LmN2pXa7Kd4HfY', secret: 'Zq8vT3cRw9LmN2pXa7Kd4HfY' },
  { written: 'ghp_1234567890abcdefghijABCDEFGHIJklmnop', secret: '1234567890abcdefghijABCDEFGHIJ' },
  { written: 'AKIAIOSFODNN7EXAMPLE', secret: 'IOSFODNN7EXAMPLE' },
  { written: 'password=Hunter2Secret', secret: 'Hunter2Secret' },
] as const;
const PLACES = ['progress', 'toolInput', 'toolResult', 'summary', 'failure'] as const;
type Place = (typeof PLACES)[number];
const FORMATS = ['json', 'md', 'html', 'junit', 'csv'] as const;

interface Event {
  eventType: string;
  payload: {
    text?: string;
    summary?: string;
    semantic_tool?: { phase: string; content: Record<string, unknown> };
  };
}

/**
 * A failed synthetic attempt with `text` in each `place`: the first progress text, a note in the
 * first tool call's input and result content (a redacted content object takes any member), the
 * proposed result's summary, the failure's message.
 */
function bundleWith(attemptId: string, placed: readonly (readonly [Place, string])[]): string {
  const bundle = syntheticAttempt({ attemptId, runTerminalState: 'failed' }) as {
    events: Event[];
    failure: { message: string } | null;
  };
  for (const [place, text] of placed) {
    const first = (test: (event: Event) => boolean): Event => {
      const found = bundle.events.find(test);
      if (found === undefined) throw new Error(`no event for ${place}`);
      return found;
    };
    if (place === 'progress') {
      const event = first((entry) => entry.eventType === 'item.delta');
      event.payload.text = `${event.payload.text ?? ''} using ${text} now`;
    } else if (place === 'toolInput') {
      const tool = first((entry) => entry.eventType === 'mcp_app.tool_input').payload.semantic_tool;
      if (tool !== undefined) tool.content.note = `input ${text}`;
    } else if (place === 'toolResult') {
      const tool = first((entry) => entry.eventType === 'mcp_app.tool_result').payload.semantic_tool;
      if (tool !== undefined) tool.content.note = `result ${text}`;
    } else if (place === 'summary') {
      const event = first((entry) => entry.eventType === 'run.result.proposed');
      event.payload.summary = `Done: ${text} and more.`;
    } else if (bundle.failure !== null) bundle.failure.message = `The run failed (${text}).`;
  }
  return JSON.stringify(bundle);
}

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
  {},
  (args) => (args.includes('--attempt') ? 'report --attempt' : (args[0] ?? '')),
);

/** Every output `report` writes over the store, and `report --attempt` of each attempt, as one text. */
async function everyReport(store: string, attempts: readonly string[]): Promise<string> {
  const outputs: string[] = [];
  for (const format of FORMATS) {
    const out = `${store}.${format}`;
    const report = await run(['report', '--store', `sqlite:${store}`, '--format', format, '--out', out]);
    expect(report.status, report.stderr).toBe(0);
    outputs.push(readFileSync(join(dir, out), 'utf8'), report.stdout, report.stderr);
  }
  for (const attemptId of attempts) {
    const out = `${store}.${attemptId}.html`;
    const page = await run(['report', '--store', `sqlite:${store}`, '--attempt', attemptId, '--out', out]);
    expect(page.status, page.stderr).toBe(0);
    outputs.push(readFileSync(join(dir, out), 'utf8'), page.stdout, page.stderr);
  }
  return outputs.join('\n');
}

async function ingest(store: string, bundles: readonly (readonly [string, string])[]): Promise<void> {
  for (const [attemptId, text] of bundles) writeFileSync(join(dir, `${store}.${attemptId}.json`), text);
  const result = await run([
    'ingest',
    ...bundles.map(([attemptId]) => `${store}.${attemptId}.json`),
    '--store',
    `sqlite:${store}`,
  ]);
  expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-report-masking-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals report masks credentials in every format', () => {
  it('every secret in every place: no output holds one, and the text around it is shown', async () => {
    const every = PLACES.map(
      (place) => [place, SECRETS.map((entry) => entry.written).join(' and ')] as const,
    );
    await ingest('all.sqlite', [['attempt_all', bundleWith('attempt_all', every)]]);
    const text = await everyReport('all.sqlite', ['attempt_all']);
    for (const { secret } of SECRETS) expect(text).not.toContain(secret);
    // The HTML pages show what surrounds each one, masked (not withheld).
    const page = readFileSync(join(dir, 'all.sqlite.attempt_all.html'), 'utf8');
    expect(page).toContain('using OPENAI_API_KEY=*** and *** and *** and password=*** now');
    expect(page).toContain('Done: OPENAI_API_KEY=*** and');
    expect(page).toContain('input OPENAI_API_KEY=*** and');
    expect(page).toContain('result OPENAI_API_KEY=*** and');
    expect(page).toContain('The run failed (OPENAI_API_KEY=***');
    expect(readFileSync(join(dir, 'all.sqlite.json'), 'utf8')).toContain(
      'The run failed (OPENAI_API_KEY=***',
    );
  }, 120_000);

  it('wherever one secret is placed, no format shows it (property)', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SECRETS),
        fc.subarray([...PLACES], { minLength: 1 }),
        async ({ written, secret }, places) => {
          const store = `p${round++}.sqlite`;
          await ingest(store, [
            [
              'attempt_p',
              bundleWith(
                'attempt_p',
                places.map((place) => [place, written]),
              ),
            ],
          ]);
          expect(await everyReport(store, ['attempt_p'])).not.toContain(secret);
        },
      ),
      { numRuns: 15 },
    );
  }, 300_000);
});
