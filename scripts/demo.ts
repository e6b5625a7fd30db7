// The README's first command: the main job of Evals, end to end, with the real binaries and the real
// CLI, as a user would run it. It builds a release of our reference runner (packed tarball +
// paperclip-runnerd + SHA256SUMS), qualifies it with `evals qualify`, validates the bundled example
// attempts, writes the demo suite (scripts/demo-suite.ts) as an evalbook.yaml with lanes, and runs
// it as a campaign with `evals run --release-dir … --qualification … --env … --campaign …`: the
// release's own paperclip-runner-eval-session bin, installed offline, runs every attempt on the
// qualified paperclip-runnerd and each lands in a fresh SQLite Evalbook as it finishes (progress on
// stderr). Then it shows the results: `evals compare` of the two lanes (one case regresses, one
// improves), the Markdown report, HTML + JUnit + JSON files, and the grid last. Everything it made
// is kept under .evalbook/demo/<campaign>/ (git-ignored; scripts/demo-paths.ts), the release too: the
// records point to it, so it can be re-run, qualified again or published. Each step is checked against its
// documented exit code.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  BASELINE,
  CANDIDATE,
  DEMO_ATTEMPTS_PER_PAIR,
  DEMO_CASES,
  DEMO_CONFIGS,
  demoEnvironmentYaml,
} from './demo-suite.ts';
import { demoPaths } from './demo-paths.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

const title = (text: string): void => {
  process.stdout.write(`\n── ${text}\n`);
};
const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;
/** Paths (and sqlite: store URLs) as the user sees them: relative to the repository when inside it. */
const shown = (path: string): string =>
  path.startsWith(`sqlite:${ROOT}`)
    ? `sqlite:${relative(ROOT, path.slice('sqlite:'.length))}`
    : path.startsWith(ROOT)
      ? relative(ROOT, path)
      : path;

function step(
  heading: string,
  command: string,
  args: string[],
  expectedExit: number,
  env = process.env,
): boolean {
  title(heading);
  // Run as shown: paths inside the repository relative to it (the working directory), as a user types them.
  const given = args.map(shown);
  process.stdout.write(`$ ${command === EVALS ? 'evals' : command} ${given.join(' ')}\n`);
  const since = performance.now();
  const { status } = spawnSync(command, given, { cwd: ROOT, stdio: 'inherit', env });
  const ok = status === expectedExit;
  process.stdout.write(
    ok
      ? `(exit ${status}, as expected; ${seconds(since)})\n`
      : `!! expected exit ${expectedExit}, got ${String(status)}\n`,
  );
  return ok;
}

/** `evals compare --json` of the two lanes: the demo checks it shows a regression and an improvement. */
function comparisonHolds(read: readonly string[]): boolean {
  const run = spawnSync(EVALS, ['compare', ...read, '--a', BASELINE, '--b', CANDIDATE, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.status !== 0) return fail(`evals compare --json exited ${String(run.status)}: ${run.stderr}`);
  const comparison = JSON.parse(run.stdout) as {
    regressions: readonly { caseId: string }[];
    improvements: readonly { caseId: string }[];
  };
  const cases = (list: readonly { caseId: string }[]): string => list.map((entry) => entry.caseId).join(', ');
  if (comparison.regressions.length === 0 || comparison.improvements.length === 0)
    return fail(
      `the comparison should show a regression and an improvement: regressions [${cases(comparison.regressions)}], improvements [${cases(comparison.improvements)}]`,
    );
  process.stdout.write(
    `(checked: ${BASELINE} → ${CANDIDATE} regresses on ${cases(comparison.regressions)} and improves on ${cases(comparison.improvements)})\n`,
  );
  return true;
}

function fail(message: string): false {
  process.stdout.write(`!! ${message}\n`);
  return false;
}

const demoStarted = performance.now();
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
const campaignId = `demo-${stamp}`;
/** What the demo made, the release included, kept (in the git-ignored .evalbook/) for a person to open, query, re-run or publish after it. */
const { keptDir, releaseDir, environment, qualification, storeUrl, campaignRecord, campaignWorkDir } =
  demoPaths(ROOT, campaignId);
mkdirSync(keptDir, { recursive: true });
const shownStore = shown(storeUrl);
const broken = [
  'denial-missing',
  'terminal-state-differs',
  'duplicate-nested-key',
  'truncated-in-object',
].map((name) => `fixtures/attempts/invalid/${name}.json`);
const lanes = DEMO_CONFIGS.filter((config) => config.enabled);
const results: boolean[] = [];
results.push(
  step(
    'Build a runner release: the packed package, a release paperclip-runnerd and SHA256SUMS (the App side, checked by its own clean consumer)',
    process.execPath,
    ['packages/reference-runner/scripts/check-clean-consumers.mjs'],
    0,
    { ...process.env, PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR: releaseDir },
  ),
  step(
    'Qualify the release: every digest, an isolated offline install, runnerd by digest, negotiation; the record kept',
    EVALS,
    ['qualify', '--release-dir', releaseDir, '--out', qualification],
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
  writeFileSync(environment, demoEnvironmentYaml());
  const read = ['--store', storeUrl, '--env', environment];
  const planned = DEMO_CASES.length * lanes.length * DEMO_ATTEMPTS_PER_PAIR;
  results.push(
    step(
      `The campaign's plan: ${lanes.length} lanes (${lanes.map((lane) => `${lane.id} on ${lane.model}`).join(', ')}) × ${DEMO_CASES.length} cases × ${DEMO_ATTEMPTS_PER_PAIR} attempts; the disabled lane is left out (suite: ${shown(environment)}, the same as fixtures/environments/demo/evalbook.yaml)`,
      EVALS,
      ['run', '--plan', '--env', environment, '--campaign', campaignId],
      0,
    ),
    step(
      `Run the campaign: the qualified record accepted (every digest checked again), the release's own paperclip-runner-eval-session installed offline, ${planned} attempts on the qualified paperclip-runnerd, 2 at a time, each ingested into a fresh SQLite Evalbook as it lands (progress on stderr)`,
      EVALS,
      [
        'run',
        '--release-dir',
        releaseDir,
        '--qualification',
        qualification,
        ...read,
        '--campaign',
        campaignId,
        '--work-dir',
        campaignWorkDir,
        '--out',
        campaignRecord,
      ],
      0,
    ),
  );
  if (results.at(-1) === true) {
    results.push(
      step(
        `Is the candidate better than the baseline? A paired comparison over shared cases: regressions first, then improvements`,
        EVALS,
        ['compare', ...read, '--a', BASELINE, '--b', CANDIDATE],
        0,
      ),
      comparisonHolds(read),
      step(
        'The report as a pull-request comment (Markdown): configs, the comparison, cost with coverage, budgets',
        EVALS,
        ['report', ...read, '--format', 'md', '--a', BASELINE, '--b', CANDIDATE],
        0,
      ),
      step(
        'The report as one self-contained HTML page, JUnit XML for CI and JSON for machines',
        EVALS,
        [
          'report',
          ...read,
          '--format',
          'html',
          '--out',
          join(keptDir, 'report.html'),
          '--a',
          BASELINE,
          '--b',
          CANDIDATE,
        ],
        0,
      ),
      step(
        'JUnit XML: one testcase per case × config, unsolved as failures, harness problems as errors',
        EVALS,
        ['report', ...read, '--format', 'junit', '--out', join(keptDir, 'junit.xml')],
        0,
      ),
      step(
        'JSON: every attempt with its status and cost provenance, then the summary',
        EVALS,
        ['report', ...read, '--format', 'json', '--out', join(keptDir, 'report.json')],
        0,
      ),
      step(
        'The grid: cases × configs, solved/counted with Wilson 95% intervals (honest statuses: a failed run or check, an incomplete transcript or a missing verdict is never a pass; a denied tool call counts through the checks it fails)',
        EVALS,
        ['grid', ...read],
        0,
      ),
    );
    process.stdout.write(
      [
        '',
        `HTML report: ${shown(join(keptDir, 'report.html'))} (open it in a browser; report.json and junit.xml beside it)`,
        `Evalbook:    ${shownStore} — query it again, e.g.`,
        `             ./node_modules/.bin/evals grid --store ${shownStore} --env ${shown(environment)}`,
        `Publish it:  ./node_modules/.bin/evals publish --store ${shownStore} --out site && ./node_modules/.bin/evals view site`,
        `             (add --public for the redacted view; evals publish --verify site before uploading it)`,
        `Campaign:    ${shown(campaignRecord)} (evals-campaign/v1), every try's request and artifact in ${shown(campaignWorkDir)}/`,
        `             (each try's artifact: ${shown(campaignWorkDir)}/*/output/artifact.json — evals validate takes those, not the whole folder)`,
        `Release:     ${shown(releaseDir)} (kept: the records point to it; re-run or publish from it)`,
        '',
      ].join('\n'),
    );
  }
}
if (results.every(Boolean)) {
  process.stdout.write(
    `Demo complete in ${seconds(demoStarted)}: the release qualified, valid attempts passed and broken ones were refused, and its campaign's attempts are in an Evalbook, compared and reported.\n`,
  );
} else {
  process.stdout.write('\nDemo FAILED: see the lines marked !! above.\n');
  process.exitCode = 1;
}
