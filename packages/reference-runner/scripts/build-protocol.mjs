// Generates the package's protocol/ folder (shipped in the tarball, never committed) from the
// repo's single sources, in upstream's flat layout: the runner's schemas (schemas/runner/ and
// schemas/prp/v1/) → protocol/schemas/<name>.schema.json (native-execution-v1 becomes
// native-execution.schema.json, as upstream names it), and fixtures/evals/{native-execution-seeded,
// harness-driver-conformance}.json → protocol/fixtures/evals/. Evals' own schemas are not shipped. Files are replaced atomically and
// only when their bytes change, and files no longer in the sources are removed, so concurrent
// readers never see a half-written file. Run as a script, or import { buildProtocol }.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
export const REPO_DIR = join(PACKAGE_DIR, '..', '..');
export const PROTOCOL_DIR = join(PACKAGE_DIR, 'protocol');
export const EVALS_FIXTURES = ['native-execution-seeded.json', 'harness-driver-conformance.json'];

/** Runner schemas under schemas/runner/ and the name upstream ships each under. */
export const RUNNER_SCHEMA_NAMES = {
  'native-execution-v1.schema.json': 'native-execution.schema.json',
  'runnerd-build-metadata-v1.schema.json': 'runnerd-build-metadata.schema.json',
  'package-build-metadata-v1.schema.json': 'build-metadata.schema.json',
};

/** [source, target] pairs of every file protocol/ holds (without the fixtures: the schemas only). */
export function protocolFiles({ fixtures = true } = {}) {
  const schemasDir = join(REPO_DIR, 'schemas');
  const target = (name) => join(PROTOCOL_DIR, 'schemas', name);
  const prpDir = join(schemasDir, 'prp', 'v1');
  const pairs = [
    ...Object.entries(RUNNER_SCHEMA_NAMES).map(([source, name]) => [
      join(schemasDir, 'runner', source),
      target(name),
    ]),
    ...readdirSync(prpDir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [join(prpDir, file), target(file)]),
  ].sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of fixtures ? EVALS_FIXTURES : []) {
    pairs.push([join(REPO_DIR, 'fixtures', 'evals', name), join(PROTOCOL_DIR, 'fixtures', 'evals', name)]);
  }
  return pairs;
}

/** Copies the files; `{ fixtures: false }` copies the schemas only (the fixture generator needs them). */
export function buildProtocol({ fixtures = true } = {}) {
  const pairs = protocolFiles({ fixtures });
  const missing = pairs
    .filter(([source]) => !existsSync(source))
    .map(([source]) => relative(REPO_DIR, source));
  if (missing.length > 0) {
    throw new Error(`build:protocol: missing ${missing.join(', ')} (run the package's fixtures script)`);
  }
  const wanted = new Set(pairs.map(([, target]) => target));
  for (const [source, target] of pairs) {
    const bytes = readFileSync(source);
    if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
    mkdirSync(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, target);
  }
  if (fixtures && existsSync(PROTOCOL_DIR)) {
    for (const file of readdirSync(PROTOCOL_DIR, { recursive: true, encoding: 'utf8' })) {
      const path = join(PROTOCOL_DIR, file);
      if (file.endsWith('.json') && !wanted.has(path)) rmSync(path);
    }
  }
  return pairs.length;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const count = buildProtocol();
  process.stdout.write(`protocol/: ${count} files from schemas/ and fixtures/evals/\n`);
}
