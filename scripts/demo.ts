// The README's first command: the main job of Evals, end to end, with the real binaries. It builds
// a release of our reference runner (packed tarball + paperclip-runnerd + SHA256SUMS), qualifies
// it with `evals qualify`, validates the bundled example attempts, installs the release's package
// offline into a fresh consumer and runs its paperclip-runner-eval-session bin, on the qualified
// paperclip-runnerd, over a small deterministic suite (scripts/demo-suite.ts), ingests the
// eval-session artifacts (and the bundles beside them) into a fresh SQLite Evalbook twice (the
// second time every attempt is a duplicate), and
// shows it: `evals grid`, `evals compare`, `evals report` as Markdown, and HTML + JSON kept under
// .evalbook/demo/. Each step is checked against its documented exit code.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  DEMO_ATTEMPTS_PER_PAIR,
  DEMO_CASES,
  DEMO_CONFIGS,
  demoAttempts,
  demoEnvironmentYaml,
} from './demo-suite.ts';

import type { DemoAttempt } from './demo-suite.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
/** Sessions run at once: one per core of a 2-core machine. */
const SESSION_CONCURRENCY = 2;
/** A session that has not ended by then is killed and counted as failed (one takes ~1-3 s). */
const SESSION_TIMEOUT_MS = 60_000;
const PNPM = ['npx', '-y', 'pnpm@12.4.2'] as const;

const title = (text: string): void => {
  process.stdout.write(`\n── ${text}\n`);
};
const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const verdict = (ok: boolean, expected: number, status: number | null, since: number): boolean => {
  process.stdout.write(
    ok
      ? `(exit ${status}, as expected; ${seconds(since)})\n`
      : `!! expected exit ${expected}, got ${String(status)}\n`,
  );
  return ok;
};

function step(
  heading: string,
  command: string,
  args: string[],
  expectedExit: number,
  env = process.env,
): boolean {
  const shown = command === EVALS ? 'evals' : command;
  title(heading);
  process.stdout.write(`$ ${shown} ${args.join(' ')}\n`);
  const since = performance.now();
  const { status } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  return verdict(status === expectedExit, expectedExit, status, since);
}

interface SessionResult {
  readonly status: number | null;
  readonly stderr: string;
}

/**
 * Installs the release's tarball OFFLINE into a fresh consumer (from the pnpm store the workspace
 * install filled, as qualification does) and returns the file its package.json names as the
 * paperclip-runner-eval-session bin, or null (the reason printed).
 */
function installEvalSessionBin(releaseDir: string, consumer: string): string | null {
  const tarball = readdirSync(releaseDir).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) return fail('the release holds no tarball');
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$|NODE_OPTIONS$)/i.test(key)),
  );
  const store = spawnSync(PNPM[0], [...PNPM.slice(1), 'store', 'path'], { cwd: ROOT, encoding: 'utf8', env });
  if (store.status !== 0) return fail(`pnpm store path failed: ${store.stderr}`);
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'evals-demo-consumer', private: true, type: 'module', dependencies: { '@paperclipai/paperclip-runner': `file:${join(releaseDir, tarball)}` } }, null, 2)}\n`,
  );
  const install = spawnSync(
    PNPM[0],
    [...PNPM.slice(1), 'install', '--offline', '--no-frozen-lockfile', '--store-dir', store.stdout.trim()],
    { cwd: consumer, encoding: 'utf8', env },
  );
  if (install.status !== 0) return fail(`pnpm install --offline failed: ${install.stdout}${install.stderr}`);
  const packageDir = join(consumer, 'node_modules', '@paperclipai', 'paperclip-runner');
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };
  const bin = manifest.bin?.['paperclip-runner-eval-session'];
  return bin === undefined
    ? fail('the package ships no paperclip-runner-eval-session bin')
    : join(packageDir, bin);
}

function fail(message: string): null {
  process.stdout.write(`!! ${message}\n`);
  return null;
}

interface SessionResult {
  readonly status: number | null;
  readonly stderr: string;
}

/** Runs one session of the installed bin with an empty environment (it needs none); collects stderr. */
function runSession(bin: string, requestPath: string, outputPath: string): Promise<SessionResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, '--request', requestPath, '--output', outputPath], {
      env: {},
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: SESSION_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => {
      resolve({ status: null, stderr: error.message });
    });
    child.on('close', (status, signal) => {
      resolve({ status, stderr: signal === null ? stderr : `${stderr}killed by ${signal}` });
    });
  });
}

/** One progress line from the artifact and its bundle: outcome, failure, denials, transcript, cost. */
function describeArtifact(path: string): string {
  const artifact = JSON.parse(readFileSync(path, 'utf8')) as {
    infrastructureFailure?: { class: string; retryable: boolean };
    nativeExecution?: { path: string };
    usage?: { costCoverage: string };
  };
  const failure = artifact.infrastructureFailure;
  const reference = artifact.nativeExecution;
  const bundle =
    reference === undefined
      ? null
      : (JSON.parse(readFileSync(join(path, '..', reference.path), 'utf8')) as {
          terminal: { runTerminalState: string };
          failure: { code: string } | null;
          semanticTools: { denials: unknown[] };
          transcript: { complete: boolean };
        });
  return [
    failure === undefined
      ? 'session ok'
      : `infrastructure failure ${failure.class} (${failure.retryable ? 'retryable' : 'not retryable'})`,
    ...(bundle === null ? ['no bundle'] : [bundle.terminal.runTerminalState]),
    ...(bundle?.failure == null || failure !== undefined ? [] : [`failure ${bundle.failure.code}`]),
    ...(bundle === null || bundle.semanticTools.denials.length === 0
      ? []
      : [`denied tool calls: ${bundle.semanticTools.denials.length}`]),
    ...(bundle === null || bundle.transcript.complete ? [] : ['transcript incomplete']),
    `cost ${artifact.usage?.costCoverage ?? 'not stated'}`,
  ].join(', ');
}

/**
 * Runs every attempt through the bin, SESSION_CONCURRENCY at a time, each request naming the
 * qualified runnerd by path and digest. Each artifact lands in `artifacts/<attempt>.json`, its
 * bundle and files in `artifacts/<attempt>/`; ingest reads the artifacts and verifies the rest.
 */
async function runSuite(
  bin: string,
  runnerd: string,
  suiteDir: string,
  attempts: readonly DemoAttempt[],
): Promise<boolean> {
  const dirs = { requests: 'requests', artifacts: 'artifacts' } as const;
  for (const dir of Object.values(dirs)) mkdirSync(join(suiteDir, dir), { recursive: true });
  const runnerdSha256 = `sha256:${createHash('sha256').update(readFileSync(runnerd)).digest('hex')}`;
  const width = String(attempts.length).length;
  let next = 0;
  let finished = 0;
  let ok = true;
  const worker = async (): Promise<void> => {
    while (next < attempts.length) {
      const attempt = attempts[next++];
      if (attempt === undefined) return;
      const started = performance.now();
      const requestPath = join(suiteDir, dirs.requests, `${attempt.attemptId}.json`);
      const outputPath = join(suiteDir, dirs.artifacts, `${attempt.attemptId}.json`);
      const request = { ...attempt.request, runnerd: { path: runnerd, sha256: runnerdSha256 } };
      writeFileSync(requestPath, `${JSON.stringify(request, null, 2)}\n`);
      const { status, stderr } = await runSession(bin, requestPath, outputPath);
      finished++;
      const label = `[${String(finished).padStart(width)}/${attempts.length}] ${attempt.attemptId}`;
      if (status !== attempt.sessionExit) {
        ok = false;
        process.stdout.write(
          `${label}  !! expected exit ${attempt.sessionExit}, got ${String(status)}: ${stderr.trim()}\n`,
        );
        continue;
      }
      process.stdout.write(
        `${label}  exit ${status}: ${describeArtifact(outputPath)}  (${seconds(started)})\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: SESSION_CONCURRENCY }, worker));
  return ok;
}

const demoStarted = performance.now();
const workDir = mkdtempSync(join(tmpdir(), 'evals-demo-'));
const releaseDir = join(workDir, 'release');
const suiteDir = join(workDir, 'suite');
/** The reports are kept (in the git-ignored .evalbook/) for a person to open after the demo. */
const keptDir = join(ROOT, '.evalbook', 'demo');
mkdirSync(keptDir, { recursive: true });
const broken = [
  'denial-missing',
  'terminal-state-differs',
  'duplicate-nested-key',
  'truncated-in-object',
].map((name) => `fixtures/attempts/invalid/${name}.json`);
const results: boolean[] = [];
try {
  results.push(
    step(
      'Build a runner release: the packed package, a release paperclip-runnerd and SHA256SUMS (the App side, checked by its own clean consumer)',
      process.execPath,
      ['packages/reference-runner/scripts/check-clean-consumers.mjs'],
      0,
      { ...process.env, PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR: releaseDir },
    ),
    step(
      'Qualify the release: every digest, an isolated offline install, runnerd by digest, negotiation',
      EVALS,
      ['qualify', '--release-dir', releaseDir],
      0,
    ),
    step(
      'Valid attempts: every bundle passes the contract parser',
      EVALS,
      ['validate', 'fixtures/attempts/valid'],
      0,
    ),
    step(
      'Broken attempts: each is refused with its rule, JSON pointer, expected and received',
      EVALS,
      ['validate', ...broken],
      1,
    ),
  );
  if (results.slice(0, 2).every(Boolean)) {
    const attempts = demoAttempts();
    const runnerd = join(releaseDir, `paperclip-runnerd-${process.platform}-${process.arch}`);
    mkdirSync(suiteDir);
    const environment = join(suiteDir, 'evalbook.yaml');
    writeFileSync(environment, demoEnvironmentYaml());
    title(
      "Install the release's package offline into a fresh consumer: its paperclip-runner-eval-session bin",
    );
    const installed = performance.now();
    const bin = installEvalSessionBin(releaseDir, join(workDir, 'consumer'));
    if (bin !== null) process.stdout.write(`(installed; ${seconds(installed)})\n`);
    title(
      `Run the suite with the installed bin on the qualified paperclip-runnerd: ${DEMO_CASES.length} cases × ${DEMO_CONFIGS.length} configs × ${DEMO_ATTEMPTS_PER_PAIR} attempts, deterministic provider (fixed seeds), ${SESSION_CONCURRENCY} at a time`,
    );
    process.stdout.write(
      `$ paperclip-runner-eval-session --request suite/requests/<attempt>.json --output suite/artifacts/<attempt>.json   (× ${attempts.length})\n` +
        `exit 0: the session ran (the artifact and bundle say how the attempt went); exit 2: an infrastructure failure, its artifact still written (here: the preview model nobody can price meets the budget stop)\n` +
        `environment (cases and configs with their sha256): ${environment}, the same as fixtures/environments/demo/evalbook.yaml\n`,
    );
    const since = performance.now();
    const sessionsOk = bin !== null && (await runSuite(bin, runnerd, suiteDir, attempts));
    process.stdout.write(
      sessionsOk
        ? `(every session exited as expected; ${seconds(since)})\n`
        : `!! some sessions did not exit as expected (marked above)\n`,
    );
    results.push(sessionsOk);
    if (sessionsOk) {
      const store = `sqlite:${join(suiteDir, 'evalbook.sqlite')}`;
      const ingestArgs = [
        'ingest',
        join(suiteDir, 'artifacts', '*.json'),
        '--store',
        store,
        '--env',
        environment,
        '--runnerd-sha256',
        `sha256:${createHash('sha256').update(readFileSync(runnerd)).digest('hex')}`,
      ];
      results.push(
        step(
          'Ingest the eval-session artifacts into a fresh SQLite Evalbook: each with the bundle beside it (by digest), transcripts and files verified by sha256, the qualified runnerd enforced, cost with its provenance, infrastructure failures stored as such',
          EVALS,
          ingestArgs,
          0,
        ),
        step(
          'Ingest the same artifacts again: every attempt is a duplicate, nothing changes',
          EVALS,
          ingestArgs,
          0,
        ),
      );
      const read = ['--store', store, '--env', environment];
      results.push(
        step(
          'The grid: cases × configs, solved/counted with Wilson 95% intervals (honest statuses: a failed run, a denial or a missing verdict is never a pass)',
          EVALS,
          ['grid', ...read],
          0,
        ),
        step(
          'Is the unpriced config better than the priced one? A paired comparison over shared cases',
          EVALS,
          ['compare', ...read, '--a', 'config_priced', '--b', 'config_unpriced'],
          0,
        ),
        step(
          'The report as a pull-request comment (Markdown): configs, cost with coverage, budgets',
          EVALS,
          ['report', ...read, '--format', 'md'],
          0,
        ),
        step(
          'The report as one self-contained HTML page: the grid with drill-down to any attempt, the comparison, plots',
          EVALS,
          [
            'report',
            ...read,
            '--format',
            'html',
            '--out',
            join(keptDir, 'report.html'),
            '--a',
            'config_priced',
            '--b',
            'config_unpriced',
          ],
          0,
        ),
        step(
          'The report as JUnit XML for CI: one testcase per case × config, unsolved as failures, harness problems as errors',
          EVALS,
          ['report', ...read, '--format', 'junit', '--out', join(keptDir, 'junit.xml')],
          0,
        ),
        step(
          'The report as JSON: every attempt with its status and cost provenance, then the summary',
          EVALS,
          ['report', ...read, '--format', 'json', '--out', join(keptDir, 'report.json')],
          0,
        ),
      );
      process.stdout.write(
        `\nKept for you to open: ${join(keptDir, 'report.html')}, with report.json and junit.xml beside it.\n`,
      );
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
if (results.every(Boolean)) {
  process.stdout.write(
    `\nDemo complete in ${seconds(demoStarted)}: the release qualified, valid attempts passed and broken ones were refused, and the attempts its eval-session bin ran are in an Evalbook.\n`,
  );
} else {
  process.stdout.write('\nDemo FAILED: see the lines marked !! above.\n');
  process.exitCode = 1;
}
