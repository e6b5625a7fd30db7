// The packed clean-consumer gate. Builds the package (tsc + protocol/) and a release
// paperclip-runnerd, packs the package with pnpm, installs the tarball OFFLINE into a fresh
// project under the OS temp dir (outside the repo, from the pnpm store the workspace install
// filled), and runs scripts/clean-consumer.mjs there: it imports only the declared exports and
// writes upstream's paperclip-runner/clean-consumer-conformance/v1 record, whose
// artifacts.runnerd.buildProfile is "release" because this gate built it so (runnerd itself never
// says). Exits non-zero, naming every failed check, on any failure.
//
// With PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR=<absolute dir> it also keeps the qualifying inputs
// there, and nothing else:
//   paperclipai-paperclip-runner-<version>.tgz      the tarball, as packed
//   paperclip-runnerd-<platform>-<arch>             the release runnerd (the only one built)
//   paperclip-runner-consumer-conformance.json      the clean consumer's record
//   SHA256SUMS                                      `<hex>  <name>` for the three files above
// The directory must be empty, or hold only those names (they are replaced).
import { execFile as execFileCallback } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';

import { PACKAGE_DIR, REPO_DIR, buildProtocol } from './build-protocol.mjs';

const execFile = promisify(execFileCallback);
const PNPM_VERSION = '12.4.2';
const RECORD_FILE = 'paperclip-runner-consumer-conformance.json';
const SUMS_FILE = 'SHA256SUMS';
const RUNNERD_FILE = `paperclip-runnerd-${process.platform}-${process.arch}`;

const log = (message) => process.stderr.write(`check:clean-consumers: ${message}\n`);
const sha256Hex = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** pnpm itself: the one running this script when there is one, else `npx -y pnpm@<version>`. */
function pnpm(args, options) {
  const execPath = process.env.npm_execpath ?? '';
  const [file, prefix] = !/pnpm/.test(execPath)
    ? ['npx', ['-y', `pnpm@${PNPM_VERSION}`]]
    : /\.[cm]?js$/.test(execPath)
      ? [process.execPath, [execPath]] // pnpm as a script
      : [execPath, []]; // pnpm as a native executable (pnpm 11+)
  return execFile(file, [...prefix, ...args], { maxBuffer: 64 * 1024 * 1024, ...options });
}

/** The environment of the consumer's pnpm and node: nothing of the workspace's npm_* settings. */
function cleanEnv(extra = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$|NODE_OPTIONS$|VITEST)/i.test(key),
    ),
  );
  return { ...env, ...extra };
}

function checkOutputDir(dir) {
  if (!isAbsolute(dir)) throw new Error(`PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR must be absolute, got ${dir}`);
  if (!existsSync(dir)) return;
  const others = readdirSync(dir).filter(
    (name) =>
      ![RUNNERD_FILE, RECORD_FILE, SUMS_FILE].includes(name) &&
      !/^paperclipai-paperclip-runner-.*\.tgz$/.test(name),
  );
  if (others.length > 0)
    throw new Error(`${dir} holds other files (${others.join(', ')}); give an empty directory`);
}

async function main() {
  const outputDir = process.env.PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR || undefined;
  if (outputDir !== undefined) checkOutputDir(outputDir);
  const work = mkdtempSync(join(tmpdir(), 'paperclip-clean-consumer-'));
  try {
    log('building the package and protocol/');
    await execFile(join(REPO_DIR, 'node_modules', '.bin', 'tsc'), ['-b', PACKAGE_DIR]);
    buildProtocol();

    log('building paperclip-runnerd (release) and packing the package');
    const release = join(work, 'artifacts', 'release', RUNNERD_FILE);
    const buildScript = join(PACKAGE_DIR, 'scripts', 'build-runnerd.mjs');
    const packDir = join(work, 'pack');
    const [storePath, sourceCommit] = await Promise.all([
      pnpm(['store', 'path'], { cwd: REPO_DIR }).then(({ stdout }) => stdout.trim()),
      execFile('git', ['rev-parse', 'HEAD'], { cwd: REPO_DIR }).then(({ stdout }) => stdout.trim()),
      execFile(process.execPath, [buildScript, '--profile', 'release', '--out', release]),
      pnpm(['pack', '--pack-destination', packDir], { cwd: PACKAGE_DIR }),
    ]);
    const tarballs = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
    if (tarballs.length !== 1) throw new Error(`pnpm pack wrote ${tarballs.length} tarballs`);
    const [tarballFile] = tarballs;
    const tarball = join(packDir, tarballFile);

    log(`installing ${tarballFile} offline into a clean consumer`);
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      `${JSON.stringify(
        {
          name: 'paperclip-runner-clean-consumer',
          private: true,
          type: 'module',
          dependencies: { '@paperclipai/paperclip-runner': `file:${tarball}` },
        },
        null,
        2,
      )}\n`,
    );
    await pnpm(['install', '--offline', '--no-frozen-lockfile', '--store-dir', storePath], {
      cwd: consumer,
      env: cleanEnv(),
    }).catch((error) => {
      throw new Error(`pnpm install --offline failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, {
        cause: error,
      });
    });
    copyFileSync(join(PACKAGE_DIR, 'scripts', 'clean-consumer.mjs'), join(consumer, 'consumer.mjs'));

    log('running the clean consumer');
    const recordPath = join(work, RECORD_FILE);
    const run = await execFile(process.execPath, ['consumer.mjs'], {
      cwd: consumer,
      env: cleanEnv({
        TARBALL_FILE: tarballFile,
        TARBALL_PATH: tarball,
        RUNNERD_FILE,
        RUNNERD_RELEASE: release,
        SOURCE_COMMIT: sourceCommit,
        RECORD_PATH: recordPath,
      }),
    }).catch((error) => error);
    if (run instanceof Error || !existsSync(recordPath))
      throw new Error(`clean consumer checks failed:\n${run.stderr ?? run.message}`);
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));

    if (outputDir !== undefined) {
      mkdirSync(outputDir, { recursive: true });
      for (const name of readdirSync(outputDir)) rmSync(join(outputDir, name));
      copyFileSync(tarball, join(outputDir, tarballFile));
      copyFileSync(release, join(outputDir, RUNNERD_FILE));
      copyFileSync(recordPath, join(outputDir, RECORD_FILE));
      const sums = [tarballFile, RUNNERD_FILE, RECORD_FILE]
        .sort()
        .map((name) => `${sha256Hex(join(outputDir, name))}  ${name}\n`)
        .join('');
      writeFileSync(join(outputDir, SUMS_FILE), sums);
      log(`wrote ${outputDir}: ${tarballFile}, ${RUNNERD_FILE}, ${RECORD_FILE}, ${SUMS_FILE}`);
    }
    process.stdout.write(
      `${JSON.stringify({ passed: true, package: record.artifacts.package, checks: Object.keys(record.checks), outputDir: outputDir ?? null })}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(
    `check:clean-consumers: FAILED: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
