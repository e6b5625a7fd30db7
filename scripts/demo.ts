// The README's first command: the main job of Evals, end to end, with the real binaries. It builds
// a release of our reference runner (packed tarball + paperclip-runnerd + SHA256SUMS), qualifies
// it with `evals qualify`, then validates the bundled example attempts; each step is checked
// against its documented exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

function step(
  title: string,
  command: string,
  args: string[],
  expectedExit: number,
  env = process.env,
): boolean {
  const shown = command === EVALS ? 'evals' : command;
  process.stdout.write(`\n── ${title}\n$ ${shown} ${args.join(' ')}\n`);
  const { status } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  const ok = status === expectedExit;
  process.stdout.write(
    ok ? `(exit ${status}, as expected)\n` : `!! expected exit ${expectedExit}, got ${String(status)}\n`,
  );
  return ok;
}

const releaseDir = mkdtempSync(join(tmpdir(), 'evals-demo-release-'));
const broken = [
  'denial-missing',
  'terminal-state-differs',
  'duplicate-nested-key',
  'truncated-in-object',
].map((name) => `fixtures/attempts/invalid/${name}.json`);
let results: boolean[];
try {
  results = [
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
  ];
} finally {
  rmSync(releaseDir, { recursive: true, force: true });
}
if (results.every(Boolean)) {
  process.stdout.write(
    '\nDemo complete: the release qualified, valid attempts passed and broken ones were refused.\n',
  );
} else {
  process.stdout.write('\nDemo FAILED: see the lines marked !! above.\n');
  process.exitCode = 1;
}
