// The README's test command (`pnpm test`): the build, then the three checks that only read its
// output — typecheck, format check, lint — at the same time (each is mostly one core; run one after
// the other they left a core idle for about a minute on a cold clone), then vitest. Each step is its
// package.json script as written (lint's is tools/lint's own, run in tools/lint, so no second pnpm
// starts). A step that fails stops the command: the checks' outputs are printed whole, one after the
// other, each under a line naming the step, and the command exits with the exit code of the first
// failing step in this order (build, typecheck, format:check, lint, vitest), as the `&&` chain did.
// Arguments after `--` go to `vitest run`. A plain .mjs script: it runs before anything is built.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LINT_DIR = join(ROOT, 'tools', 'lint');

const scriptsOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts;
const rootScripts = scriptsOf(ROOT);

/** The environment of a step: the workspace's (and the step's folder's) node_modules/.bin first on PATH. */
const envFor = (cwd) => ({
  ...process.env,
  PATH: [...new Set([join(cwd, 'node_modules', '.bin'), join(ROOT, 'node_modules', '.bin')])]
    .concat(process.env.PATH ?? '')
    .join(delimiter),
});

/**
 * Runs `command` with sh in `cwd`. `inherit`: its output goes straight to ours; otherwise it is
 * collected (stdout and stderr in the order they came) and returned with the exit code.
 */
function run(name, command, cwd, inherit) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: envFor(cwd),
      stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
    });
    child.on('close', (code, signal) => {
      resolve({
        name,
        command,
        code: code ?? (signal === null ? 1 : 128 + signalNumber(signal)),
        signal,
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
const signalNumber = (signal) => SIGNALS[signal] ?? 1;

const say = (text) => process.stdout.write(`${text}\n`);
const outcome = (step) =>
  step.code === 0
    ? `passed in ${step.seconds.toFixed(1)} s`
    : `FAILED (exit ${step.code}${step.signal === null ? '' : `, ${step.signal}`}) after ${step.seconds.toFixed(1)} s`;

async function main() {
  const dashes = process.argv.indexOf('--', 2);
  const vitestArgs = process.argv.slice(dashes === -1 ? 2 : dashes + 1);

  say(`$ ${rootScripts.build}`);
  const build = await run('build', rootScripts.build, ROOT, true);
  if (build.code !== 0) {
    say(`test: build ${outcome(build)}; nothing else ran`);
    return build.code;
  }

  const checks = [
    ['typecheck', rootScripts.typecheck, ROOT],
    ['format:check', rootScripts['format:check'], ROOT],
    ['lint', scriptsOf(LINT_DIR).lint, LINT_DIR],
  ];
  say(`test: ${checks.map(([name]) => name).join(', ')} at the same time`);
  const results = await Promise.all(checks.map(([name, command, cwd]) => run(name, command, cwd, false)));
  for (const step of results) {
    say(`\n── ${step.name} ($ ${step.command}): ${outcome(step)}`);
    if (step.output !== '')
      process.stdout.write(step.output.endsWith('\n') ? step.output : `${step.output}\n`);
  }
  const failed = results.filter((step) => step.code !== 0);
  if (failed.length > 0) {
    say(`\ntest: ${failed.map((step) => step.name).join(', ')} failed (see above); vitest did not run`);
    return failed[0].code;
  }

  const vitest = ['vitest', 'run', ...vitestArgs].map(shellQuote).join(' ');
  say(`\n$ ${vitest}`);
  return (await run('vitest', vitest, ROOT, true)).code;
}

const shellQuote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

process.exitCode = await main();
