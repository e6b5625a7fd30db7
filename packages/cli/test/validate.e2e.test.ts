// `evals validate` end to end: the real binary, spawned as a user would run it, on the example attempts.
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const VALID = join(ROOT, 'fixtures/attempts/valid');
const INVALID = join(ROOT, 'fixtures/attempts/invalid');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function evals(args: string[], options: { cwd?: string; input?: string | Buffer } = {}): Run {
  const result = spawnSync(EVALS, args, {
    cwd: options.cwd ?? ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface JsonReport {
  summary: { valid: number; invalid: number; unreadable: number };
  files: { input: string; status: string; issues?: { code: string; path: string }[] }[];
}

describe('evals validate', () => {
  it('exits 0 and lists every valid example', () => {
    const run = evals(['validate', 'fixtures/attempts/valid']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/5 valid, 0 invalid, 0 unreadable/);
    expect(run.stdout).toContain('fixtures/attempts/valid/run-failed.json');
  });

  it('exits 1 and names the broken rule and pointer of every broken example', () => {
    const index = JSON.parse(
      readFileSync(join(ROOT, 'fixtures/attempts/invalid.index.json'), 'utf8'),
    ) as Record<string, { rule: string; path: string }>;
    const run = evals(['validate', INVALID, '--json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.summary).toEqual({ valid: 0, invalid: Object.keys(index).length, unreadable: 0 });
    for (const [name, expected] of Object.entries(index)) {
      const file = report.files.find((entry) => entry.input.endsWith(`/${name}.json`));
      expect(
        file?.issues?.map((issue) => `${issue.code} ${issue.path}`),
        name,
      ).toContain(`${expected.rule} ${expected.path}`);
    }
  });

  it('takes a quoted glob as ingest and policy replay do, and refuses a directory without *.json', () => {
    const run = evals(['validate', 'fixtures/attempts/valid/*.json', '--json']);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as JsonReport).files.map((file) => file.input)).toEqual(
      readdirSync(join(ROOT, 'fixtures/attempts/valid'))
        .sort()
        .map((name) => `fixtures/attempts/valid/${name}`),
    );
    const empty = evals(['validate', 'packages/cli/src/commands', '--json']);
    expect(empty.status).toBe(2);
    expect((JSON.parse(empty.stdout) as JsonReport).files).toEqual([
      {
        input: 'packages/cli/src/commands',
        status: 'unreadable',
        error: 'no *.json files in this directory',
        code: 'input_empty_directory',
      },
    ]);
  });

  it('resolves relative paths against the caller’s working directory', () => {
    const run = evals(['validate', 'valid/run-failed.json', '--json'], {
      cwd: join(ROOT, 'fixtures/attempts'),
    });
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as JsonReport).files[0]?.input).toBe('valid/run-failed.json');
  });

  it('reads a bundle from stdin with -', () => {
    const run = evals(['validate', '-'], { input: readFileSync(join(VALID, 'denied-tool-call.json')) });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('(stdin)');
  });

  it('refuses an oversized bundle under --max-bytes without reading it all', () => {
    const run = evals(['validate', join(VALID, 'denied-tool-call.json'), '--max-bytes', '512', '--json']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('input_too_large');
    // the refusal names the flag that raises the limit
    expect(run.stdout).toContain('--max-bytes raises it (to at most 512 MiB)');
  });

  it('exits 2 for a path that does not exist, and still checks the others', () => {
    const run = evals(['validate', 'no/such/attempt.json', join(VALID, 'run-failed.json')]);
    expect(run.status).toBe(2);
    expect(run.stdout).toMatch(/error\s+no\/such\/attempt\.json\s+no such file or directory \(ENOENT\)/);
    expect(run.stdout).toMatch(/1 valid, 0 invalid, 1 unreadable/);
  });

  it('exits 2 with a usage message when no input is given', () => {
    const run = evals(['validate']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("missing required argument 'inputs'");
    expect(run.stdout).toBe('');
  });

  it('reports a bad flag value with what it expected, without a stack trace', () => {
    const run = evals(['validate', 'x.json', '--max-bytes', 'lots']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'expected a size from 1 byte to 512 MiB, like 1048576 or 64MiB, received lots',
    );
    expect(run.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it('teaches in --help: what it checks, exit codes and examples', () => {
    const run = evals(['validate', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Exit codes: 0');
    expect(run.stdout).toContain('$ evals validate');
  });

  // A glob from the current folder names only what it matches: a symlink beside it that does not
  // match is no input, `*.json` does not recurse (node_modules' symlinks never listed), and `**` does.
  it('a glob considers only matching entries: no files match, never a non-matching symlink', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evals-validate-glob-'));
    try {
      writeFileSync(join(dir, 'a.json'), '{}');
      symlinkSync('a.json', join(dir, 'b.txt'));
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync('..', join(dir, 'node_modules', 'pkg'));
      writeFileSync(join(dir, 'node_modules', 'deep.json'), '{}');
      const none = evals(['validate', 'zzz*.json', '--json'], { cwd: dir });
      expect(none.status).toBe(2);
      const noneReport = JSON.parse(none.stdout) as JsonReport;
      expect(noneReport.files).toEqual([
        {
          input: 'zzz*.json',
          status: 'unreadable',
          error: 'no files match this pattern',
          code: 'input_no_match',
        },
      ]);
      expect(none.stdout).not.toContain('b.txt');
      const top = JSON.parse(evals(['validate', '*.json', '--json'], { cwd: dir }).stdout) as JsonReport;
      expect(top.files.map((file) => file.input)).toEqual(['a.json']);
      const deep = JSON.parse(evals(['validate', '**/*.json', '--json'], { cwd: dir }).stdout) as JsonReport;
      expect(deep.files.map((file) => file.input)).toEqual(['a.json', join('node_modules', 'deep.json')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
