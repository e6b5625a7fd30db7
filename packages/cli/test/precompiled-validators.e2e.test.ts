// The build's precompiled schema validators are what every bundle path of the real CLI runs: `evals
// validate` and `evals ingest` of one bundle (a native-execution bundle, an eval-session artifact
// and its bundle, with an environment and its case checks) load no JSON Schema compiler — not
// Ajv's, nor ajv-formats' plugin — only the small runtime helpers the generated code requires. A
// stale or missing precompiled module, or any package loading Ajv eagerly again, fails this: the
// compiler costs a small command more than the bundle does (docs/benchmarks.md, "Starting a
// command"). And the validators load one module per schema, at its first use: `evals validate` of a
// native-execution bundle loads that schema's module and no other (the others are most of the
// generated code).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'packages/cli/bin/evals.js');
const VALID = join(ROOT, 'fixtures/attempts/valid');
const BUNDLE = join(
  VALID,
  readdirSync(VALID)
    .filter((name) => name.endsWith('.json'))
    .sort()[0] ?? '',
);

/**
 * Prints, at exit, every module request naming ajv or ajv-formats that went through the CJS loader,
 * and every precompiled validator module loaded (by its path in dist/validators/).
 */
const SPY = `data:text/javascript,${encodeURIComponent(`
import Module from 'node:module';
const load = Module._load;
const seen = new Set();
const validators = new Set();
Module._load = function (request, ...rest) {
  if (/(^|\\/)ajv(-formats)?(\\/|$)/.test(request)) seen.add(request.replace(/.*\\/node_modules\\//, ''));
  const validator = /[\\\\/]contract[\\\\/]dist[\\\\/]validators[\\\\/](.*)$/.exec(request);
  if (validator !== null) validators.add(validator[1].split('\\\\').join('/'));
  return load.call(this, request, ...rest);
};
process.on('exit', () => {
  process.stderr.write('\\nAJV_MODULES ' + JSON.stringify([...seen]) + '\\n');
  process.stderr.write('VALIDATOR_MODULES ' + JSON.stringify([...validators].sort()) + '\\n');
});
`)}`;

/** The runtime pieces generated validators require (never a compiler). */
const RUNTIME = /^ajv\/dist\/runtime\/|^ajv-formats\/dist\/formats$/;

/** The CLI run with the spy: the Ajv modules and the precompiled validator modules it loaded. */
function loads(args: string[], status = 0): { ajv: string[]; validators: string[] } {
  const run = spawnSync(process.execPath, ['--import', SPY, CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(status);
  const line = /AJV_MODULES (.*)\nVALIDATOR_MODULES (.*)\n$/.exec(run.stderr);
  expect(line, run.stderr).not.toBeNull();
  return {
    ajv: JSON.parse(line?.[1] ?? '[]') as string[],
    validators: JSON.parse(line?.[2] ?? '[]') as string[],
  };
}

const ajvModules = (args: string[]): string[] => loads(args).ajv;

/** The precompiled module of the native-execution schema (schemas/runner/native-execution-v1.schema.json). */
const NATIVE_EXECUTION_MODULE = 'runner/native-execution-v1.schema.cjs';
const RUNNERD_MODULE = 'runner/runnerd-build-metadata-v1.schema.cjs';

let dir: string;
/** A bundle the schema refuses: its terminal is missing. */
let INVALID: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-precompiled-'));
  const { terminal: _terminal, ...bundle } = JSON.parse(readFileSync(BUNDLE, 'utf8')) as Record<
    string,
    unknown
  >;
  INVALID = join(dir, 'invalid.json');
  writeFileSync(INVALID, JSON.stringify(bundle));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the CLI judges bundles with the precompiled validators', () => {
  it('the spy sees a compiler when one loads (it can fail)', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        SPY,
        '-e',
        "require(require.resolve('ajv/dist/2020.js', { paths: [process.argv[1]] }))",
        join(ROOT, 'packages/contract'),
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toMatch(/AJV_MODULES .*ajv\/dist\/2020\.js/);
  });

  it('the spy sees a precompiled validator module when one loads (it can fail)', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        SPY,
        '-e',
        'require(process.argv[1])',
        join(ROOT, 'packages/contract/dist/validators', RUNNERD_MODULE),
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toContain(`VALIDATOR_MODULES ${JSON.stringify([RUNNERD_MODULE])}`);
  });

  it.each([
    ['evals validate one bundle', () => ['validate', BUNDLE]],
    ['evals validate --json of one bundle', () => ['validate', BUNDLE, '--json']],
    [
      'evals ingest one bundle into a new store',
      () => ['ingest', BUNDLE, '--store', `sqlite:${join(dir, 'a.sqlite')}`],
    ],
  ])('%s loads no schema compiler', (_name, args) => {
    const loaded = ajvModules(args());
    expect(loaded.filter((request) => !RUNTIME.test(request))).toEqual([]);
  });

  it.each([
    ['evals validate one bundle', () => ['validate', BUNDLE], 0],
    ['evals validate --json of one bundle', () => ['validate', BUNDLE, '--json'], 0],
    ['evals validate of every valid fixture', () => ['validate', VALID], 0],
    ['evals validate of an invalid bundle', () => ['validate', INVALID], 1],
  ])('%s loads the native-execution validator module and no other', (_name, args, status) => {
    expect(loads(args(), status).validators).toEqual([NATIVE_EXECUTION_MODULE]);
  });

  it('evals validate of an eval-session artifact alone loads its schema module and no other', () => {
    const artifact = join(dir, 'artifact.json');
    writeFileSync(artifact, JSON.stringify(upstreamSuccess('attempt_alone')));
    expect(loads(['validate', artifact]).validators).toEqual(['runner/eval-session-artifact-v1.schema.cjs']);
  });

  it('nor does evals ingest with an environment whose case carries an engine check', () => {
    const bundle = JSON.parse(readFileSync(BUNDLE, 'utf8')) as {
      identity: { caseId: string; configId: string };
      input: { caseSha256: string; configSha256: string };
    };
    const environment = join(dir, 'evalbook.json');
    writeFileSync(
      environment,
      JSON.stringify({
        schema: 'paperclip-evals/environment/v1',
        name: 'precompiled',
        cases: [
          {
            id: bundle.identity.caseId,
            sha256: bundle.input.caseSha256,
            checks: [
              {
                id: 'ran',
                type: 'content',
                spec: { target: 'output.run_terminal_state', check: 'contains', value: 'e' },
              },
            ],
          },
        ],
        configs: [
          { id: bundle.identity.configId, sha256: bundle.input.configSha256, model: 'm', driver: 'd' },
        ],
      }),
    );
    const loaded = ajvModules([
      'ingest',
      BUNDLE,
      '--store',
      `sqlite:${join(dir, 'b.sqlite')}`,
      '--env',
      environment,
    ]);
    expect(loaded.filter((request) => !RUNTIME.test(request))).toEqual([]);
  });
});
