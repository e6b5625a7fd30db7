// `evals ingest` stopped by SIGINT mid-way (the real binary, a folder of 3,000 attempts): heard at
// once, not after the last file; exit 130 with one line on stderr saying how far it read, at least
// how many attempts are stored (never more than the store holds) and that running the same command
// again continues — which it does (every attempt stored once, the earlier ones duplicates).
// `ingest --help` lists 130/143, as every command that handles the signal itself does.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
const COUNT = 3000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-ingest-interrupt-'));
  mkdirSync(join(dir, 'runs'));
  const text = JSON.stringify(syntheticAttempt({ attemptId: 'a' }));
  const template = JSON.parse(text) as { identity: { attemptId: string } };
  for (let index = 0; index < COUNT; index++) {
    template.identity.attemptId = `a${String(index).padStart(5, '0')}`;
    writeFileSync(join(dir, 'runs', `${index}.json`), JSON.stringify(template));
  }
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('when ingest is interrupted (SIGINT)', () => {
  it('exits 130 saying what is stored and that re-running continues; re-running stores the rest', async () => {
    const child = spawn(
      process.execPath,
      [EVALS, 'ingest', 'runs', '--store', 'sqlite:book.sqlite', '--json'],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // Once the store exists, the ingest is writing: a signal then stops it mid-way.
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const wal = statSync(join(dir, 'book.sqlite-wal'), { throwIfNoEntry: false });
        if ((wal?.size ?? 0) > 0 || Date.now() - started > 20_000) {
          clearInterval(poll);
          resolve();
        }
      }, 25);
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(130);
    const line =
      /evals: interrupted \(SIGINT\): ingest stopped (?:before its first count|after reading (\d+) of (\d+) input\(s\): at least (\d+) attempt\(s\) stored)/.exec(
        stderr,
      );
    expect(line, stderr).not.toBeNull();
    expect(stderr).toContain('Run the same command again to continue');
    // Heard mid-way, not after the last file (reads are synchronous: turnIfDue hands the signal a
    // turn; without it the line came after reading 3000 of 3000, seconds after the signal).
    if (line?.[1] !== undefined) expect(Number(line[1]), stderr).toBeLessThan(COUNT);
    const claimed = Number(line?.[3] ?? 0);
    const again = spawnSync(
      process.execPath,
      [EVALS, 'ingest', 'runs', '--store', 'sqlite:book.sqlite', '--json'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(again.status, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as { inserted: number; duplicates: number };
    expect(report.inserted + report.duplicates).toBe(COUNT);
    // What the line said is stored was stored: at least that many are duplicates now.
    expect(report.duplicates).toBeGreaterThanOrEqual(claimed);
    expect(report.duplicates).toBeLessThan(COUNT);
  }, 120_000);

  // Every command that handles SIGINT/SIGTERM itself (a notice, children to kill) lists the code.
  it.each([['run'], ['qualify'], ['negotiate'], ['runnerd', 'inspect'], ['policy', 'replay'], ['ingest']])(
    '%s --help lists exit 130 (interrupted)',
    (...command) => {
      const help = spawnSync(process.execPath, [EVALS, ...command, '--help'], { encoding: 'utf8' });
      // Wrapped to the help's width: read it as one line.
      expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/\b130\b[^·]*(Ctrl-C|SIGINT)/);
    },
  );

  it('ingest --help lists 130/143 and what they mean', () => {
    const help = spawnSync(process.execPath, [EVALS, 'ingest', '--help'], { encoding: 'utf8' });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '130/143 stopped by SIGINT/SIGTERM: stderr says how many attempts are stored',
    );
  });
});
