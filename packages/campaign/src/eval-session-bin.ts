// Which eval-session program a campaign runs: the package's own `paperclip-runner-eval-session`
// bin, from an offline install of the qualified tarball (its digest checked again first) into a
// private consumer outside any package, exactly as qualification installs it; or, when given, a
// bin file named by path and sha256 (a stand-in or a diagnosis build), verified before use. Either
// runs as `node <bin>` (no shell, no PATH lookup). The install is removed by `dispose` (a SIGKILL of
// `evals run` leaves it in the temp folder).
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, isAbsolute } from 'node:path';

import { digestFile } from '@paperclip-evals/node';
import {
  RUNNER_PACKAGE_NAME,
  extractTarball,
  installConsumer,
  pnpmCommand,
} from '@paperclip-evals/qualification';

import { CampaignError } from './errors.js';

import type { Issue } from '@paperclip-evals/contract';

/** The bin upstream's package declares for one direct eval session. */
export const EVAL_SESSION_BIN = 'paperclip-runner-eval-session';

export interface EvalSessionProgram {
  readonly command: string;
  readonly args: readonly string[];
  /** The bin file and its digest (what the record names). */
  readonly binPath: string;
  readonly binSha256: string;
  dispose(): Promise<void>;
}

export interface EvalSessionBinOptions {
  readonly tarballPath: string;
  readonly tarballSha256: string;
  /** Instead of the package's bin: this file, which must have this digest. */
  readonly override?: { readonly path: string; readonly sha256: string };
  /** pnpm command line for the offline install (default: qualification's pnpmCommand). */
  readonly pnpm?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Parent of the private install folder (default os.tmpdir(); outside any package). */
  readonly tempDir?: string;
}

const refuse = (message: string, issues: readonly Issue[]): CampaignError =>
  new CampaignError('paperclip_campaign_release_incompatible', message, issues);

export async function evalSessionProgram(options: EvalSessionBinOptions): Promise<EvalSessionProgram> {
  if (options.override !== undefined) {
    const path = resolve(options.override.path);
    const found = await digestFile(path).catch(() => null);
    if (found?.digest !== options.override.sha256)
      throw refuse('the eval-session bin is not the one named', [
        {
          code: 'eval_session_bin_digest_mismatch',
          message: `${path} ${found === null ? 'cannot be read' : 'has another digest'}`,
          path: '--eval-session-bin',
          expected: options.override.sha256,
          received: found?.digest ?? 'unreadable',
        },
      ]);
    return {
      command: process.execPath,
      args: [path],
      binPath: path,
      binSha256: found.digest,
      dispose: () => Promise.resolve(),
    };
  }
  const tarball = await digestFile(options.tarballPath);
  if (tarball.digest !== options.tarballSha256)
    throw refuse('the tarball changed since it was qualified', [
      {
        code: 'release_digest_changed',
        message: `${options.tarballPath} changed since it was qualified`,
        path: options.tarballPath,
        expected: options.tarballSha256,
        received: tarball.digest,
      },
    ]);
  const root = await mkdtemp(join(options.tempDir ?? tmpdir(), 'paperclip-evals-campaign-'));
  // Not registered with contract's child-cleanup: its SIGINT handler would end the campaign at the
  // first Ctrl-C, which here only stops scheduling (the CLI decides); removed in `dispose`.
  const dispose = async (): Promise<void> => {
    await rm(root, { recursive: true, force: true });
  };
  try {
    const extractDir = join(root, 'extract');
    await mkdir(extractDir, { mode: 0o700 });
    const extraction = await extractTarball(options.tarballPath, extractDir);
    if (extraction.packageDir === null)
      throw refuse('the tarball cannot be extracted', [...extraction.issues]);
    const consumerDir = join(root, 'consumer');
    const env = options.env ?? process.env;
    const installed = await installConsumer({
      consumerDir,
      packageName: RUNNER_PACKAGE_NAME,
      packageDir: extraction.packageDir,
      pnpm: options.pnpm ?? pnpmCommand(env),
      env,
    });
    if (installed.issues.length > 0)
      throw refuse(`the offline install failed: ${installed.detail}`, [...installed.issues]);
    const packageDir = await realpath(join(consumerDir, 'node_modules', RUNNER_PACKAGE_NAME));
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
      bin?: unknown;
    };
    const bin =
      typeof manifest.bin === 'object' && manifest.bin !== null
        ? (manifest.bin as Record<string, unknown>)[EVAL_SESSION_BIN]
        : undefined;
    if (typeof bin !== 'string')
      throw refuse(`the package declares no ${EVAL_SESSION_BIN} bin`, [
        {
          code: 'eval_session_bin_missing',
          message: `${RUNNER_PACKAGE_NAME}'s package.json has no bin ${EVAL_SESSION_BIN}: it cannot run eval sessions`,
          path: '/bin',
          expected: `bin.${EVAL_SESSION_BIN}`,
          received: JSON.stringify(manifest.bin ?? null),
        },
      ]);
    const binPath = await realpath(join(packageDir, bin));
    const inside = relative(packageDir, binPath);
    if (inside.startsWith('..') || isAbsolute(inside))
      throw refuse('the eval-session bin leaves the package', [
        {
          code: 'eval_session_bin_outside',
          message: `${bin} resolves outside the package`,
          path: '/bin',
          expected: 'a file in the package',
          received: bin,
        },
      ]);
    const { digest } = await digestFile(binPath);
    return { command: process.execPath, args: [binPath], binPath, binSha256: digest, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
