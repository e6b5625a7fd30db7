// The child processes of a qualification (pnpm installing the consumer, node running the probe):
// which pnpm to run and the small environment each gets. Each runs through @paperclip-evals/node's
// runBounded (no shell, its own process group, a timeout and output caps, the one kill rule).
import { delimiter, sep } from 'node:path';

/** The pnpm the repo pins; used through npx when nothing else names a pnpm. */
export const PINNED_PNPM = 'pnpm@12.4.2';
/** Names one pnpm command line, split on spaces (e.g. `/usr/local/bin/pnpm` or `npx -y pnpm@12.4.2`). */
export const PNPM_COMMAND_ENV = 'PAPERCLIP_EVALS_PNPM';

/**
 * The pnpm command line: PAPERCLIP_EVALS_PNPM (split on spaces) if set; else the pnpm running
 * us, when npm_execpath is its JavaScript entry point (pnpm.cjs, pnpm.js or pnpm.mjs); else
 * `npx -y pnpm@12.4.2`.
 */
export function pnpmCommand(
  env: NodeJS.ProcessEnv = process.env,
  nodePath: string = process.execPath,
): string[] {
  const configured = env[PNPM_COMMAND_ENV]?.trim();
  if (configured !== undefined && configured !== '') return configured.split(/ +/);
  const execPath = env.npm_execpath;
  if (execPath !== undefined && /(?:^|[/\\])pnpm\.(?:cjs|js|mjs)$/.test(execPath))
    return [nodePath, execPath];
  return ['npx', '-y', PINNED_PNPM];
}

/**
 * Variables pnpm (and npx, when it is the launcher) may need to find the user's store, metadata
 * cache and configuration offline. Anything else of ours — tokens, CI flags, npm_config_* set by
 * the package manager running us, NODE_OPTIONS, NODE_PATH — stays out.
 */
const PNPM_ENV_NAMES = [
  'HOME',
  'TMPDIR',
  'LANG',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'PNPM_HOME',
  'npm_config_store_dir',
  'NPM_CONFIG_STORE_DIR',
  'npm_config_cache_dir',
  'NPM_CONFIG_CACHE_DIR',
  'npm_config_cache',
  'NPM_CONFIG_CACHE',
  'npm_config_userconfig',
  'NPM_CONFIG_USERCONFIG',
] as const;

/**
 * The environment of the consumer's `pnpm install`: PATH without any node_modules/.bin folder (a
 * package manager running us puts the workspace's there), plus the variables above when set.
 */
export function pnpmEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const result: Record<string, string> = { PATH: sanitizedPath(env.PATH) };
  for (const name of PNPM_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== '') result[name] = value;
  }
  return result;
}

/** PATH minus every entry inside a node_modules folder. */
export function sanitizedPath(path: string | undefined): string {
  return (path ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !entry.split(sep).includes('node_modules'))
    .join(delimiter);
}
