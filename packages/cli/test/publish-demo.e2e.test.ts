// The demo's public projection (issue 19): the demo suite (scripts/demo-suite.ts: its cases × configs
// × 3 attempts) run through the reference runner's built paperclip-runner-eval-session bin with its
// deterministic provider (the first session as the bin's process, the others through its entry
// in this process, each still running its runnerd copy as a process), ingested with the demo's
// environment, published with --public: no byte of the site holds any tool input or result text,
// tool call or session id, or raw failure text of the demo's bundles and artifacts (every such
// string is collected from them and grepped for), and the site verifies. The private site of the same store does hold them, so the grep can fail.
// Nor any stretch of 16 characters of a case's prompt or description (the agent's first step is
// `Working on: <prompt>`): without a campaign record the progress text is withheld whole; once the
// ledger holds the campaign's record with its caseDefinitions, it is published with them withheld.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEMO_ENVIRONMENT_FIXTURE } from '../../../scripts/demo-environment.ts';
import {
  DEMO_ATTEMPTS_PER_PAIR,
  DEMO_CASES,
  DEMO_CONFIGS,
  caseSession,
  caseSha256,
  configSha256,
} from '../../../scripts/demo-suite.ts';
import { openStore } from '@paperclip-evals/evalbook';
import { allBytes } from '@paperclip-evals/test-kit/site-store';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const BIN = join(REPO, 'packages/reference-runner/dist/cli/eval-session.js');
const RUNNERD_MAIN = join(REPO, 'packages/reference-runner/dist/runnerd/main.js');

/** The built bin's own entry (what its process runs), for the sessions after the first. */
type RunEvalSessionCli = (
  argv: readonly string[],
  io: { readonly stderr: (text: string) => void; readonly cwd: string; readonly now: () => Date },
) => Promise<number>;

let dir: string;
const secrets = new Set<string>();

const evals = (args: readonly string[]): { code: number | null; stdout: string; stderr: string } => {
  const result = spawnSync(process.execPath, [EVALS, ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 180_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

/** Every string under `value` (object values and array items), for the grep. */
function strings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) strings(item, into);
}

/** Values the public projection keeps by design (identity, model and tool names): never "private". */
const allowed = new Set<string>();

/** What the public projection must drop, from one bundle or artifact as the runner wrote it. */
function privateText(document: Record<string, unknown>): void {
  const found = new Set<string>();
  strings(document.identity, allowed);
  const events = (document.events ?? []) as {
    eventType: string;
    payload: { semantic_tool?: Record<string, unknown> };
  }[];
  for (const event of events) {
    const tool = event.payload.semantic_tool;
    if (tool === undefined) continue;
    // Tool inputs and results, call and session ids: everything but the tool's name, outcome code and boundary.
    const {
      operationId,
      outcome: _outcome,
      code: _code,
      authorizationBoundary: _boundary,
      schema: _schema,
      phase: _phase,
      ...payload
    } = tool;
    if (typeof operationId === 'string') allowed.add(operationId);
    strings(payload, found);
  }
  for (const key of ['provider', 'driver', 'requestedModel', 'model', 'providerVersion'])
    strings(document[key], allowed);
  const failure = document.failure as { message?: string } | null | undefined;
  if (typeof failure?.message === 'string') found.add(failure.message);
  const infrastructure = document.infrastructureError as { message?: string } | undefined;
  if (typeof infrastructure?.message === 'string') found.add(infrastructure.message);
  // Long enough to be the payload's own text, not a word the page says anyway.
  for (const text of found) if (text.length >= 12 && !/^sha256:|^[0-9.:TZ-]+$/.test(text)) secrets.add(text);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-publish-demo-'));
  mkdirSync(join(dir, 'artifacts'));
  const runnerd = join(dir, 'paperclip-runnerd');
  writeFileSync(
    runnerd,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(RUNNERD_MAIN)} "$@"\n`,
  );
  chmodSync(runnerd, 0o755);
  const runnerdSha256 = `sha256:${createHash('sha256').update(readFileSync(runnerd)).digest('hex')}`;
  let runEvalSessionCli: RunEvalSessionCli | undefined;
  // The demo's eval-session requests: each case × config × attempt, as its campaign sends them.
  for (const entry of DEMO_CASES)
    for (const config of DEMO_CONFIGS)
      for (let n = 1; n <= DEMO_ATTEMPTS_PER_PAIR; n++) {
        const attemptId = `attempt_${entry.id.replace(/^case_/, '')}_${config.id.replace(/^config_/, '')}_${n}`;
        const request = join(dir, `${attemptId}.request.json`);
        writeFileSync(
          request,
          JSON.stringify({
            schema: 'paperclip-runner/eval-session-request/v1',
            attemptId,
            prompt: entry.prompt,
            model: config.model,
            provider: 'paperclip_deterministic',
            runnerd: { path: runnerd, sha256: runnerdSha256 },
            limits: { turnTimeoutMs: 60_000, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 },
            session: {
              runId: 'run_demo_publish',
              seed: `demo/${entry.id}/${config.id}/${n}`,
              ...caseSession(entry),
            },
            evalCase: {
              caseId: entry.id,
              caseSha256: caseSha256(entry),
              configId: config.id,
              configSha256: configSha256(config),
            },
          }),
        );
        const output = join(dir, 'artifacts', `${attemptId}.json`);
        const argv = ['--request', request, '--output', output];
        let status: number | null;
        let stderr = '';
        if (runEvalSessionCli === undefined) {
          // The first session is the bin's own process (node, empty environment); the other 35 run
          // its entry, runEvalSessionCli, in this process (each still runs its runnerd copy as a
          // process): what this file checks is the site made of their artifacts, not the bin's start.
          const run = spawnSync(process.execPath, [BIN, ...argv], {
            env: {},
            timeout: 60_000,
            encoding: 'utf8',
          });
          ({ status, stderr } = run);
          runEvalSessionCli = (
            (await import(pathToFileURL(BIN).href)) as { runEvalSessionCli: RunEvalSessionCli }
          ).runEvalSessionCli;
        } else {
          status = await runEvalSessionCli(argv, {
            stderr: (text) => (stderr += text),
            cwd: dir,
            now: () => new Date(),
          });
        }
        // 0, or 2 for an infrastructure outcome (an unpriced model's budget stop): an artifact either way.
        expect([0, 2], `${attemptId}: ${stderr}`).toContain(status);
      }
  // Each artifact and the bundle beside it (in folders of their own).
  for (const name of readdirSync(join(dir, 'artifacts'), { recursive: true, encoding: 'utf8' }))
    if (name.endsWith('.json') && statSync(join(dir, 'artifacts', name)).isFile())
      privateText(JSON.parse(readFileSync(join(dir, 'artifacts', name), 'utf8')) as Record<string, unknown>);
  const ingest = evals([
    'ingest',
    join(dir, 'artifacts', '*.json'),
    '--env',
    DEMO_ENVIRONMENT_FIXTURE,
    '--store',
    'sqlite:book.sqlite',
  ]);
  expect(ingest.code, ingest.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every stretch of 16 characters (lower-cased, white space as one space) of the suite's prompts and descriptions that `bytes` holds. */
function suiteStretches(bytes: string): string[] {
  const held = bytes.toLowerCase().replace(/\s+/g, ' ');
  return DEMO_CASES.flatMap((entry) =>
    [entry.prompt, entry.description].flatMap((text) => {
      const folded = text.toLowerCase().replace(/\s+/g, ' ');
      return Array.from({ length: Math.max(0, folded.length - 15) }, (_, start) =>
        folded.slice(start, start + 16),
      ).filter((stretch) => held.includes(stretch));
    }),
  );
}

describe('the public projection of the demo', () => {
  it('collected the private text to grep for (tool payloads, call and session ids, failure text)', () => {
    expect(secrets.size).toBeGreaterThan(20);
  });

  it('holds none of it in any byte, and verifies', async () => {
    const publish = evals([
      'publish',
      '--store',
      'sqlite:book.sqlite',
      '--env',
      DEMO_ENVIRONMENT_FIXTURE,
      '--out',
      'public',
      '--public',
    ]);
    expect(publish.code, publish.stderr).toBe(0);
    const bytes = await allBytes(join(dir, 'public'));
    const leaked = [...secrets].filter((text) => !allowed.has(text) && bytes.includes(text));
    expect(leaked.slice(0, 40)).toEqual([]);
    expect(suiteStretches(bytes).slice(0, 40)).toEqual([]);
    // No campaign record carries the suite's prompts: the progress text is withheld, and the page says why.
    expect(bytes).toContain('data-field="conversation-withheld"');
    // What the allowlist keeps is there: the demo's tool names.
    expect(bytes).toContain('read_document');
    expect(evals(['publish', '--verify', 'public']).code).toBe(0);
  });

  it('the private site of the same store does show some of it (the grep can fail)', async () => {
    expect(
      evals([
        'publish',
        '--store',
        'sqlite:book.sqlite',
        '--env',
        DEMO_ENVIRONMENT_FIXTURE,
        '--out',
        'private',
      ]).code,
    ).toBe(0);
    const bytes = await allBytes(join(dir, 'private'));
    expect([...secrets].some((text) => !allowed.has(text) && bytes.includes(text))).toBe(true);
    // The agent's progress text quotes every prompt there (`Working on: <prompt>`).
    expect(suiteStretches(bytes).length).toBeGreaterThan(DEMO_CASES.length);
  });

  it("with the campaign's record in the ledger, publishes the progress text with every prompt and description withheld, and verifies", async () => {
    const store = await openStore(`sqlite:${join(dir, 'book.sqlite')}`);
    try {
      await store.recordCampaign({
        campaignId: 'run_demo_publish',
        record: {
          schema: 'evals-campaign/v1',
          campaignId: 'run_demo_publish',
          suiteFingerprint: `sha256:${'1'.repeat(64)}`,
          planDigest: `sha256:${'2'.repeat(64)}`,
          lanes: [],
          caseDefinitions: DEMO_CASES.map(({ id, prompt, description }) => ({ id, prompt, description })),
          complete: true,
          partial: [],
          totals: { planned: 0, tries: 0 },
        },
      });
    } finally {
      await store.close();
    }
    const publish = evals([
      'publish',
      '--store',
      'sqlite:book.sqlite',
      '--out',
      'public-recorded',
      '--public',
    ]);
    expect(publish.code, publish.stderr).toBe(0);
    const bytes = await allBytes(join(dir, 'public-recorded'));
    expect(suiteStretches(bytes).slice(0, 40)).toEqual([]);
    expect(bytes).toContain('Working on: [suite text withheld]');
    expect(bytes).not.toContain('data-field="conversation-withheld"');
    expect([...secrets].filter((text) => !allowed.has(text) && bytes.includes(text)).slice(0, 40)).toEqual(
      [],
    );
    expect(evals(['publish', '--verify', 'public-recorded']).code).toBe(0);
  });
});
