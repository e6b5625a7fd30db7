// The README's first command: runs the real `evals` binary over the bundled example attempts and
// checks that it answers as documented (valid ones pass, broken ones are refused with their rule).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

function step(title: string, args: string[], expectedExit: number): boolean {
  process.stdout.write(`\n── ${title}\n$ evals ${args.join(' ')}\n`);
  const { status } = spawnSync(EVALS, args, { cwd: ROOT, stdio: 'inherit' });
  const ok = status === expectedExit;
  process.stdout.write(
    ok ? `(exit ${status}, as expected)\n` : `!! expected exit ${expectedExit}, got ${String(status)}\n`,
  );
  return ok;
}

const broken = [
  'denial-missing',
  'terminal-state-differs',
  'duplicate-nested-key',
  'truncated-in-object',
].map((name) => `fixtures/attempts/invalid/${name}.json`);
const results = [
  step('Valid attempts: every bundle passes the contract parser', ['validate', 'fixtures/attempts/valid'], 0),
  step(
    'Broken attempts: each is refused with its rule, JSON pointer, expected and received',
    ['validate', ...broken],
    1,
  ),
];
if (results.every(Boolean))
  process.stdout.write('\nDemo complete: Evals accepted the valid attempts and refused the broken ones.\n');
else {
  process.stdout.write('\nDemo FAILED: see the lines marked !! above.\n');
  process.exitCode = 1;
}
