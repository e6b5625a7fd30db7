// `tsx scripts/bench/startup-bench.ts [--rounds N] [--against OTHER_CHECKOUT] [--json]`: what one
// small command costs beyond starting the CLI at all. Each round runs, interleaved, `evals
// --version` (the floor: Node plus the CLI's own modules), `evals validate` of one bundle and
// `evals ingest` of it into a new SQLite store; figures are medians of wall and CPU time, and
// ratios to the floor measured in the same round. With --against, the same commands of another
// checkout's built CLI (e.g. the commit before a change) run in the same rounds.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { describeRatios, loadAverage, median, pairedRatios, runCli } from './cli-run.ts';

import type { Run } from './cli-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    against: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const rounds = Number(values.rounds);
const valid = join(ROOT, 'fixtures/attempts/valid');
const bundle = join(
  valid,
  readdirSync(valid)
    .filter((name) => name.endsWith('.json'))
    .sort()[0] ?? '',
);
const work = mkdtempSync(join(tmpdir(), 'evals-startup-bench-'));

const clis: [string, string | undefined][] = [['this checkout', undefined]];
if (values.against !== undefined)
  clis.push([values.against, join(values.against, 'packages/cli/bin/evals.js')]);
const commands: [string, (round: number, cli: number) => string[]][] = [
  ['--version', () => ['--version']],
  ['validate one bundle', () => ['validate', bundle]],
  [
    'ingest one bundle (new store)',
    (round, cli) => ['ingest', bundle, '--store', `sqlite:${join(work, `${cli}-${round}.sqlite`)}`],
  ],
];

/** `evals validate` of one bundle at most this many times `evals --version`, round by round. */
const TARGET = 1.5;
const runs = new Map<string, Run[]>();
const loadBefore = loadAverage();
try {
  for (let round = 0; round < rounds; round++)
    for (const [index, [, cli]] of clis.entries())
      for (const [name, args] of commands) {
        const run = await runCli(args(round, index), cli);
        if (run.exitCode !== 0) throw new Error(`${name} exited ${String(run.exitCode)}`);
        const key = `${index}\0${name}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
      }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const loadAfter = loadAverage();

const results = clis.flatMap(([label], index) => {
  const of = (name: string): Run[] => runs.get(`${index}\0${name}`) ?? [];
  const floor = of('--version');
  return commands.map(([name]) => {
    const wall = median(of(name).map((run) => run.seconds));
    const cpu = median(of(name).map((run) => run.cpuSeconds));
    return {
      cli: label,
      command: name,
      wallSeconds: wall,
      cpuSeconds: cpu,
      wallToFloor: wall / median(floor.map((run) => run.seconds)),
      cpuToFloor: cpu / median(floor.map((run) => run.cpuSeconds)),
      /** Per-round ratios to the floor run in the same round (medians, spread, rounds within TARGET). */
      toFloorByRound: pairedRatios(floor, of(name), TARGET),
    };
  });
});
if (values.json === true)
  console.log(
    JSON.stringify({ rounds, bundle, load: { before: loadBefore, after: loadAfter }, results }, null, 2),
  );
else {
  console.log(
    `startup: ${rounds} interleaved rounds, medians (ratios to --version of the same CLI); load average ${loadBefore} before, ${loadAfter} after`,
  );
  for (const result of results)
    console.log(
      `  ${result.cli.padEnd(16)} ${result.command.padEnd(30)} wall ${result.wallSeconds.toFixed(3)} s (${result.wallToFloor.toFixed(2)}×)  cpu ${result.cpuSeconds.toFixed(3)} s (${result.cpuToFloor.toFixed(2)}×)${result.command === '--version' ? '' : `\n      per round: ${describeRatios(result.toFloorByRound)}`}`,
    );
}
