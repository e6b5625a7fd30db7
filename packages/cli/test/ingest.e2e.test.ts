// `evals ingest` end to end in real processes: exit codes 0 / 1 / 2 and the --json report shape.
// Two ways in: the built command module (packages/cli/dist/commands/ingest.js) in a child process,
// and the real `evals` binary.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const COMMAND = pathToFileURL(join(ROOT, 'packages/cli/dist/commands/ingest.js')).href;
const EXIT_CODES = pathToFileURL(join(ROOT, 'packages/cli/dist/exit-codes.js')).href;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

interface JsonReport {
  schema: string;
  exitCode: number;
  store: string;
  inserted: number;
  duplicates: number;
  conflicts: { input: string; existingDigest: string; bundleDigest: string }[];
  invalid: { input: string; issues: { code: string; path: string }[] }[];
  unreadable: { input: string; error: string }[];
  coverage: { text: string; priced: number; attempts: number };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-ingest-e2e-'));
  mkdirSync(join(dir, 'ok'));
  for (let index = 0; index < 4; index++) {
    const attemptId = `attempt_${index}`;
    const options = index === 3 ? { attemptId, costMicros: null } : { attemptId };
    writeFileSync(join(dir, 'ok', `${attemptId}.json`), JSON.stringify(syntheticAttempt(options)));
  }
  writeFileSync(
    join(dir, 'conflict.json'),
    JSON.stringify(syntheticAttempt({ attemptId: 'attempt_0', costMicros: 7 })),
  );
  const bad = syntheticAttempt({ attemptId: 'attempt_bad' });
  delete (bad as Record<string, unknown>).usage;
  writeFileSync(join(dir, 'invalid.json'), JSON.stringify(bad));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the ingest command module in a child process (argv: JSON options). */
function viaModule(options: Record<string, unknown>): Run {
  // The command returns its outcome; the exit-code table turns it into the exit code.
  const script = `import { runIngest } from ${JSON.stringify(COMMAND)};
import { exitCodeForOutcome } from ${JSON.stringify(EXIT_CODES)};
process.exitCode = exitCodeForOutcome(await runIngest(${JSON.stringify({ json: false, ...options })}));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function viaBinary(args: string[]): Run {
  const result = spawnSync(EVALS, args, { cwd: dir, input: '', encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('evals ingest (command module, child process)', () => {
  it('exits 0 on a fresh ingest and again on re-ingest (duplicates), with a human summary', () => {
    const store = `sqlite:${join(dir, 'a.sqlite')}`;
    const first = viaModule({ inputs: ['ok'], store });
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/4 inserted, 0 duplicate, 0 conflict, 0 invalid, 0 unreadable/);
    expect(first.stdout).toMatch(/cost of the new attempts: 3 of 4 attempts priced/);
    const repeated = viaModule({ inputs: ['ok'], store });
    expect(repeated.stdout).toMatch(/0 inserted, 4 duplicate/);
    expect(repeated.stdout).toContain('cost: no new attempts to price');
    const again = viaModule({ inputs: ['ok'], store, json: true });
    expect(again.status).toBe(0);
    const report = JSON.parse(again.stdout) as JsonReport;
    expect(report).toMatchObject({
      schema: 'paperclip-evals/ingest-report/v1',
      exitCode: 0,
      inserted: 0,
      duplicates: 4,
    });
  });

  it('exits 1 on a conflict or an invalid bundle, reporting each', () => {
    const store = `sqlite:${join(dir, 'b.sqlite')}`;
    expect(viaModule({ inputs: ['ok'], store }).status).toBe(0);
    const run = viaModule({ inputs: ['conflict.json', 'invalid.json'], store, json: true });
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.conflicts).toHaveLength(1);
    expect(report.conflicts[0]?.input).toBe('conflict.json');
    expect(report.invalid[0]?.issues.some((issue) => issue.path === '/usage')).toBe(true);
    expect(report.inserted).toBe(0);
    // In text, the conflict says what to do (once, whatever the number of conflicts).
    const text = viaModule({ inputs: ['conflict.json'], store });
    expect(text.stdout).toMatch(
      /ingest a re-run under its own run or attempt id; .*evals retract --run \S+ --attempt \S+/,
    );
    expect(text.stdout.match(/evals retract/g)).toHaveLength(1);
  });

  it('exits 2 on an unreadable input, and defaults the store to .evalbook/evalbook.sqlite', () => {
    const run = viaModule({ inputs: ['ok', 'absent.json'], json: true });
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.store).toBe('sqlite:.evalbook/evalbook.sqlite');
    expect(report.unreadable[0]?.input).toBe('absent.json');
  });
});

describe('evals ingest (the binary)', () => {
  it('exits 0, 1 and 2 as documented', () => {
    const store = `sqlite:${join(dir, 'c.sqlite')}`;
    expect(viaBinary(['ingest', 'ok', '--store', store]).status).toBe(0);
    expect(viaBinary(['ingest', 'ok', '--store', store]).status).toBe(0);
    const conflict = viaBinary(['ingest', 'conflict.json', '--store', store, '--json']);
    expect(conflict.status).toBe(1);
    expect((JSON.parse(conflict.stdout) as JsonReport).conflicts).toHaveLength(1);
    expect(viaBinary(['ingest', 'absent.json', '--store', store]).status).toBe(2);
    expect(viaBinary(['ingest', 'ok', '--store', 'mysql://nope']).status).toBe(2);
    expect(viaBinary(['ingest']).status).toBe(2);
  });
});

describe('evals ingest: glob patterns and the progress line', () => {
  it('expands a quoted glob under its static base; a pattern matching nothing is unreadable (exit 2)', () => {
    const store = `sqlite:${join(dir, 'glob.sqlite')}`;
    const run = viaBinary(['ingest', 'ok/attempt_[12].json', '--store', store, '--json']);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as JsonReport).inserted).toBe(2);
    const recursive = viaBinary(['ingest', '**/attempt_*.json', '--store', store, '--json']);
    expect(JSON.parse(recursive.stdout) as JsonReport).toMatchObject({ inserted: 2, duplicates: 2 });
    const none = viaBinary(['ingest', 'ok/*.yaml', '--store', store, '--json']);
    expect(none.status).toBe(2);
    expect((JSON.parse(none.stdout) as JsonReport).unreadable[0]).toEqual({
      input: 'ok/*.yaml',
      error: 'no files match this pattern',
      code: 'input_no_match',
    });
  });

  it('draws count, rate and ETA on a terminal, and nothing when stderr is not one', () => {
    const store = `sqlite:${join(dir, 'tty.sqlite')}`;
    // script(1) gives the command a pseudo-terminal, as a person at a shell would.
    const tty = spawnSync('script', ['-qec', `${EVALS} ingest ok --store ${store}`, '/dev/null'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toMatch(/ingesting: 4\/4 · 4 inserted, 0 duplicate, 0 problem\(s\) · \d+\/s, ETA 0s/);
    const piped = viaBinary(['ingest', 'ok', '--store', store]);
    expect(piped.stderr).toBe('');
  });
});
