// What runnerd-eval-session's two runs cost (the refusal of a provider no runner supports, then the
// session), against the session alone, in this process: CPU of this process and of every child it
// waited for (/proc/self/stat utime + stime + cutime + cstime, Linux only) and wall time, per call,
// averaged over --rounds calls, on the test suite's FAKE release (its Node runnerd, and the same
// runnerd padded to 100 MB, the size of the reference runner's single executable, where staging the
// private copy dominates). A measurement, never a test: it exits non-zero only on an internal error.
//
// Run: `npx -y pnpm@12.4.2 run build && ./node_modules/.bin/tsx scripts/bench/eval-session-runs-bench.ts [--rounds 3]`
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import {
  runEvalSessionCheck,
  runEvalSessionChecks,
  runEvalSessionRefusalCheck,
} from '../../packages/qualification/src/eval-session.ts';
import {
  FAKE_VERSION,
  buildFakeRelease,
  writeFakeEvalSessionBin,
} from '@paperclip-evals/test-kit/fake-release';

import type { Sha256Digest } from '../../packages/contract/src/index.ts';

/** CPU of this process and its waited-for children so far, in ms (clock ticks of 10 ms). */
function cpuMs(): number {
  // After the command name's ") ": field 3 (state) first, so utime..cstime (14..17) are 11..14.
  const fields = (readFileSync('/proc/self/stat', 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
}

async function perCall(
  rounds: number,
  call: () => Promise<unknown>,
): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = cpuMs();
  const wall = performance.now();
  for (let round = 0; round < rounds; round++) await call();
  return {
    cpuMs: Math.round((cpuMs() - cpu) / rounds),
    wallMs: Math.round((performance.now() - wall) / rounds),
  };
}

const digest = (path: string): Sha256Digest =>
  `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'eval-session-runs-bench-'));
try {
  const fake = await buildFakeRelease(join(dir, 'release'), {});
  const bin = await writeFakeEvalSessionBin(join(dir, 'bin'), {});
  const padded = join(dir, 'runnerd-100MB');
  writeFileSync(padded, Buffer.concat([readFileSync(fake.runnerd), Buffer.alloc(100 * 1024 * 1024)]));
  chmodSync(padded, 0o755);
  console.log(`per call, mean of ${rounds} (node ${process.version}); CPU = this process + its children`);
  for (const [name, runnerdPath] of [
    ['fake runnerd', fake.runnerd],
    ['100 MB runnerd', padded],
  ] as const) {
    const options = { evalSessionBin: bin, runnerdPath, expectedSha256: digest(runnerdPath), workDir: dir };
    const session = await perCall(rounds, () =>
      runEvalSessionCheck({ ...options, packageVersion: FAKE_VERSION }),
    );
    const refusal = await perCall(rounds, () => runEvalSessionRefusalCheck(options));
    const both = await perCall(rounds, () =>
      runEvalSessionChecks({ ...options, packageVersion: FAKE_VERSION }),
    );
    for (const [row, figures] of [
      ['session alone (baseline)', session],
      ['refusal alone', refusal],
      ['both, one staging', both],
    ] as const)
      console.log(
        `${name.padEnd(15)} ${row.padEnd(25)} ${String(figures.cpuMs).padStart(5)} ms CPU ${String(figures.wallMs).padStart(5)} ms wall  ×${(figures.cpuMs / session.cpuMs).toFixed(2)} CPU`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
