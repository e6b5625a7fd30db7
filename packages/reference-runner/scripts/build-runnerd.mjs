// Builds paperclip-runnerd as a Node single executable application (SEA):
//   node scripts/build-runnerd.mjs --profile release|debug --out <path>
// 1. refreshes protocol/ (schemas/ is the one source of the schemas runnerd embeds);
// 2. esbuild bundles src/runnerd/main.ts and its dependencies (ajv, canonicalize...) into ONE
//    CommonJS file (a SEA runs CommonJS, with builtins only), with the build profile baked in by
//    `define` and src/assets.ts replaced by a module embedding package.json's name and version and
//    every protocol schema (a SEA cannot read the package's folders);
// 3. `node --experimental-sea-config` turns the bundle into a blob; the blob is injected into a
//    copy of this Node executable with postject. Prints the output path and its sha256.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { inject } from 'postject';

import { PACKAGE_DIR, PROTOCOL_DIR, buildProtocol } from './build-protocol.mjs';

const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const ASSETS_MODULE = join(PACKAGE_DIR, 'src', 'assets.ts');

/** The embedded replacement of src/assets.ts: the same exports, with the files inlined. */
function embeddedAssetsSource() {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
  const schemasDir = join(PROTOCOL_DIR, 'schemas');
  const schemas = readdirSync(schemasDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(schemasDir, file), 'utf8')));
  return [
    `const MANIFEST = ${JSON.stringify({ name: manifest.name, version: manifest.version })};`,
    `const SCHEMAS = ${JSON.stringify(schemas)};`,
    'export function readPackageManifest() { return MANIFEST; }',
    'export function readProtocolSchemas() { return SCHEMAS; }',
    "export function protocolFileUrl(path) { return new URL('embedded:protocol/' + path); }",
  ].join('\n');
}

/** Builds the executable at `out`; returns its sha256 digest. */
export async function buildRunnerd({ profile, out }) {
  if (profile !== 'release' && profile !== 'debug') throw new Error('--profile must be release or debug');
  buildProtocol({ fixtures: false });
  const work = mkdtempSync(join(tmpdir(), 'paperclip-runnerd-build-'));
  try {
    // Reproducible: the same sources give the same bytes wherever and whenever they are built. The
    // bundle is made in memory as if written to a fixed place in the package (a debug build's source
    // map names sources relative to it), and the SEA config names its files relative to the private
    // folder it runs in, so no random folder name reaches the blob.
    const bundle = join(work, 'runnerd.cjs');
    const { outputFiles } = await build({
      entryPoints: [join(PACKAGE_DIR, 'src', 'runnerd', 'main.ts')],
      absWorkingDir: PACKAGE_DIR,
      outfile: join(PACKAGE_DIR, 'dist', 'runnerd.cjs'),
      write: false,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minify: profile === 'release',
      sourcemap: profile === 'debug' ? 'inline' : false,
      logLevel: 'warning',
      plugins: [
        {
          name: 'paperclip-embedded-assets',
          setup(esbuild) {
            esbuild.onLoad({ filter: /[\\/]src[\\/]assets\.ts$/ }, (args) =>
              args.path === ASSETS_MODULE ? { contents: embeddedAssetsSource(), loader: 'js' } : undefined,
            );
          },
        },
      ],
    });
    if (outputFiles.length !== 1) throw new Error(`esbuild wrote ${outputFiles.length} files, expected one`);
    writeFileSync(bundle, outputFiles[0].contents);
    const blob = join(work, 'runnerd.blob');
    const config = join(work, 'sea-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        main: 'runnerd.cjs',
        output: 'runnerd.blob',
        disableExperimentalSEAWarning: true,
        useCodeCache: false,
        useSnapshot: false,
      }),
    );
    execFileSync(process.execPath, ['--experimental-sea-config', 'sea-config.json'], {
      cwd: work,
      stdio: 'pipe',
    }); // throws with its stderr
    const target = resolve(out);
    mkdirSync(dirname(target), { recursive: true });
    rmSync(target, { force: true });
    copyFileSync(process.execPath, target);
    chmodSync(target, 0o755);
    await inject(target, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
    return `sha256:${createHash('sha256').update(readFileSync(target)).digest('hex')}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  if (args[0] === '--') args.shift(); // `pnpm run build:runnerd -- --profile …` passes the `--` on
  const { values } = parseArgs({
    args,
    options: { profile: { type: 'string' }, out: { type: 'string' } },
    strict: true,
  });
  if (values.out === undefined)
    throw new Error('usage: build-runnerd.mjs --profile release|debug --out <path>');
  const sha256 = await buildRunnerd({ profile: values.profile, out: values.out });
  process.stdout.write(`${resolve(values.out)} ${sha256}\n`);
}
