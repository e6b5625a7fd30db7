// The README's test command (`pnpm test`): the build, then — at the same time, as each needs only
// the build — typecheck, format check, lint and vitest. Run one after the other, the checks left a
// core idle for most of a minute (eslint is one core's work) before vitest began; now vitest's
// workers use it. Each step is its package.json script as written (lint's is tools/lint's own, run
// in tools/lint, so no second pnpm starts).
//
// Fails loudly, with the old `&&` chain's exit code: a failing build stops everything; a failing
// check stops vitest (its process group is killed) and the command exits with the exit code of the
// first failing step in the order build, typecheck, format:check, lint, vitest. Vitest's output
// streams as it comes; a check's result is one line between vitest's lines when it ends
// (`test: lint passed in 52.1 s`), its output after vitest's, a failing check's last, under a line
// naming it. When every step passed, the last line is vitest's own (`N passed, N failed`, which CI
// reads). Arguments after `--` go to `vitest run`. A plain .mjs script with its own few lines of line
// splitting: it runs before anything is built, so it cannot use packages/node.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LINT_DIR = join(ROOT, 'tools', 'lint');

const scriptsOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts;
const rootScripts = scriptsOf(ROOT);

/** The environment of a step: its folder's and the workspace's node_modules/.bin first on PATH. */
const envFor = (cwd) => ({
  ...process.env,
  PATH: [...new Set([join(cwd, 'node_modules', '.bin'), join(ROOT, 'node_modules', '.bin')])]
    .concat(process.env.PATH ?? '')
    .join(delimiter),
});

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/**
 * Starts `command` with sh in `cwd`, leading its own process group. `onStdout(text)`, when given,
 * receives its stdout (stderr goes straight to ours); otherwise stdout and stderr are collected, in
 * the order they came. Returns the child and a promise of the step's result.
 */
function start(name, command, cwd, onStdout) {
  const started = Date.now();
  const child = spawn('sh', ['-c', command], {
    cwd,
    env: envFor(cwd),
    detached: true,
    stdio: onStdout === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  const chunks = [];
  const collect = (chunk) => chunks.push(chunk);
  child.stdout.on('data', onStdout === undefined ? collect : (chunk) => onStdout(chunk.toString('utf8')));
  child.stderr?.on('data', collect);
  const done = new Promise((resolve) => {
    child.on('error', (error) => collect(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({
        name,
        command,
        code: code ?? 128 + (SIGNALS[signal] ?? 1),
        signal,
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
  return { child, done };
}

/** Every step started; a SIGINT or SIGTERM to us goes to each one's group (they lead their own). */
const running = new Set();
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.on(signal, () => {
    for (const child of running) killGroup(child, signal);
    process.exit(code);
  });
}

const killGroup = (child, signal = 'SIGTERM') => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
};

const outcome = (step) =>
  step.code === 0
    ? `passed in ${step.seconds.toFixed(1)} s`
    : `FAILED (exit ${step.code}${step.signal === null ? '' : `, ${step.signal}`}) after ${step.seconds.toFixed(1)} s`;

const withNewline = (text) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
const shellQuote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

async function main() {
  const dashes = process.argv.indexOf('--', 2);
  const vitestArgs = process.argv.slice(dashes === -1 ? 2 : dashes + 1);

  process.stdout.write(`$ ${rootScripts.build}\n`);
  const build = await start('build', rootScripts.build, ROOT, (text) => process.stdout.write(text)).done;
  if (build.code !== 0) {
    process.stdout.write(`test: build ${outcome(build)}; nothing else ran\n`);
    return build.code;
  }

  // Vitest's stdout, passed on by whole lines, so that a check's line never splits one of them.
  let pending = '';
  let lastLine = '';
  let linesSinceVitest = 0;
  const say = (line) => {
    process.stdout.write(`${line}\n`);
    linesSinceVitest += 1;
  };
  const fromVitest = (text) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      process.stdout.write(`${line}\n`);
      if (line.trim() !== '') [lastLine, linesSinceVitest] = [line, 0];
    }
  };

  const checks = [
    ['typecheck', rootScripts.typecheck, ROOT],
    ['format:check', rootScripts['format:check'], ROOT],
    ['lint', scriptsOf(LINT_DIR).lint, LINT_DIR],
  ];
  const vitestCommand = ['vitest', 'run', ...vitestArgs].map(shellQuote).join(' ');
  say(`test: ${checks.map(([name]) => name).join(', ')} and \`${vitestCommand}\` at the same time`);
  const vitest = start('vitest', vitestCommand, ROOT, fromVitest);
  const results = await Promise.all(
    checks.map(async ([name, command, cwd]) => {
      const step = await start(name, command, cwd).done;
      say(`test: ${name} ${outcome(step)}`);
      if (step.code !== 0) killGroup(vitest.child);
      return step;
    }),
  );
  const tests = await vitest.done;
  if (pending !== '') fromVitest('\n');

  const failed = results.filter((step) => step.code !== 0);
  for (const step of [...results.filter((result) => result.code === 0), ...failed]) {
    say(`\n── ${step.name} ($ ${step.command}): ${outcome(step)}`);
    process.stdout.write(withNewline(step.output));
  }
  if (failed.length > 0) {
    const stopped = tests.signal === 'SIGTERM' ? 'was stopped' : outcome(tests);
    say(`\ntest: FAILED: ${failed.map((step) => step.name).join(', ')} (output above); vitest ${stopped}`);
    return failed[0].code;
  }
  if (tests.code !== 0) {
    say(`\ntest: vitest ${outcome(tests)}`);
    return tests.code;
  }
  if (linesSinceVitest > 0 && lastLine !== '') process.stdout.write(`\n${lastLine}\n`);
  return 0;
}

process.exitCode = await main();
