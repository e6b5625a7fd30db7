// Test support: the fake `paperclip-runnerd` executables the resolver tests run. Each is a small
// `#!/bin/sh` script (dash) written into a temporary directory by the test setup. The resolver runs
// them with an empty environment, so every external command is named by its absolute path, and
// every script first insists on being called as `<self> --build-metadata` (exit 64 otherwise).
import { createHash } from 'node:crypto';
import { accessSync, constants as fsConstants } from 'node:fs';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { GOOD_METADATA } from './runnerd-metadata.ts';

export { GOOD_METADATA };

export interface TestExecutable {
  readonly path: string;
  /** Digest of the file's bytes (the right `expectedSha256`). */
  readonly sha256: string;
  readonly byteSize: number;
}

export interface TestExecutables {
  readonly dir: string;
  readonly good: TestExecutable;
  /** Good metadata, but it leaves `wrongDigestRanMarker` behind if it is ever executed. */
  readonly wrongDigest: TestExecutable;
  readonly wrongDigestRanMarker: string;
  readonly exitsOne: TestExecutable;
  readonly killsItself: TestExecutable;
  /** Starts a background `sleep` (same process group), writes "<$$> <$!>" to `sleeperPidsFile`, sleeps. */
  readonly sleeper: TestExecutable;
  readonly sleeperPidsFile: string;
  readonly printsTenMegabytes: TestExecutable;
  readonly printsInvalidJson: TestExecutable;
  readonly printsTwoObjects: TestExecutable;
  readonly printsArray: TestExecutable;
  readonly printsExtraFields: TestExecutable;
  readonly extraFields: Record<string, unknown>;
  /** Missing packageVersion, binaryContractVersion 0, prp.minimumVersion above maximumVersion. */
  readonly printsInvalidMetadata: TestExecutable;
  /** Prints good metadata plus `x_probe`: "$HOME|$PAPERCLIP_RESOLVER_TEST_SECRET|$*|<stdin state>". */
  readonly probesEnvironment: TestExecutable;
  /** Executable shell code without `#!`: execve refuses it; /bin/sh would leave `notExecutableFormatRanMarker`. */
  readonly notExecutableFormat: TestExecutable;
  readonly notExecutableFormatRanMarker: string;
  readonly nonExecutable: TestExecutable;
  readonly directory: string;
  readonly danglingSymlink: string;
  /** A symlink to `good`. */
  readonly symlinkToGood: string;
  /** A directory holding only `paperclip-runnerd` (a good build), for bare-name tests. */
  readonly bareNameDir: string;
}

export const TEN_MEGABYTES = 10 * 1024 * 1024;

/** Absolute path of a system tool, for scripts that run without PATH. */
export function systemTool(name: string): string {
  for (const dir of ['/usr/bin', '/bin']) {
    const path = join(dir, name);
    try {
      accessSync(path, fsConstants.X_OK);
      return path;
    } catch {
      // try the next directory
    }
  }
  throw new Error(`${name} not found in /usr/bin or /bin`);
}

/** A shell single-quoted word. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A script that prints `text` (plus a newline) when called with --build-metadata. */
export function printingScript(text: string, before = ''): string {
  return script(`${before}printf '%s\\n' ${shQuote(text)}\n`);
}

/** `#!/bin/sh`, the --build-metadata guard, then `body`. */
export function script(body: string): string {
  return `#!/bin/sh\n[ "$1" = --build-metadata ] || exit 64\n${body}`;
}

export function sha256Of(bytes: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export async function writeExecutable(
  path: string,
  content: string | Uint8Array,
  mode = 0o755,
): Promise<TestExecutable> {
  await writeFile(path, content);
  await chmod(path, mode);
  const byteSize = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
  return { path, sha256: sha256Of(content), byteSize };
}

/**
 * Script text of at least `minBytes`: a header that prints `metadata` and exits, then comment
 * lines the shell never reaches. `probe` (shell code setting $probe) adds an `x_probe` field.
 */
export function paddedScript(metadata: unknown, minBytes: number, probe?: string): string {
  const json = JSON.stringify(metadata);
  const print =
    probe === undefined
      ? `printf '%s\\n' ${shQuote(json)}\n`
      : `${probe}\nprintf '%s' ${shQuote(`${json.slice(0, -1)},"x_probe":`)}\nprintf '"%s"' "$probe"\nprintf '%s\\n' '}'\n`;
  const header = script(`${print}exit 0\n`);
  const line = `#${'-'.repeat(1022)}\n`;
  const lines = Math.max(0, Math.ceil((minBytes - header.length) / line.length));
  return header + line.repeat(lines);
}

/** Writes every test executable into `dir` (which must exist and be empty). */
export async function createTestExecutables(dir: string): Promise<TestExecutables> {
  const at = (name: string): string => join(dir, name);
  const good = await writeExecutable(at('good'), printingScript(JSON.stringify(GOOD_METADATA)));

  const wrongDigestRanMarker = at('wrong-digest.ran');
  const wrongDigest = await writeExecutable(
    at('wrong-digest'),
    printingScript(JSON.stringify(GOOD_METADATA), `: > ${shQuote(wrongDigestRanMarker)}\n`),
  );

  const exitsOne = await writeExecutable(
    at('exits-one'),
    script(`echo 'runnerd: no build metadata compiled in' >&2\nexit 1\n`),
  );
  const killsItself = await writeExecutable(at('kills-itself'), script('kill -KILL $$\n/bin/sleep 5\n'));

  const sleeperPidsFile = at('sleeper.pids');
  const sleep = systemTool('sleep');
  const sleeper = await writeExecutable(
    at('sleeper'),
    script(`${sleep} 1000 &\necho "$$ $!" > ${shQuote(sleeperPidsFile)}\n${sleep} 1000\n`),
  );

  const printsTenMegabytes = await writeExecutable(
    at('prints-10mb'),
    script(`${systemTool('head')} -c ${TEN_MEGABYTES} /dev/zero\n`),
  );
  const printsInvalidJson = await writeExecutable(
    at('prints-invalid-json'),
    printingScript('paperclip-runnerd 0.4.2 (release)'),
  );
  const printsTwoObjects = await writeExecutable(
    at('prints-two-objects'),
    printingScript(`${JSON.stringify(GOOD_METADATA)}\n${JSON.stringify(GOOD_METADATA)}`),
  );
  const printsArray = await writeExecutable(
    at('prints-array'),
    printingScript(JSON.stringify([GOOD_METADATA])),
  );

  const extraFields = {
    ...GOOD_METADATA,
    prp: { ...GOOD_METADATA.prp, x_wireFormat: 'ndjson' },
    x_vendor: { commit: '8d1f2e0', dirty: false },
    futureField: [1, 2, 3],
  };
  const printsExtraFields = await writeExecutable(
    at('prints-extra-fields'),
    printingScript(JSON.stringify(extraFields)),
  );

  const withoutVersion: Record<string, unknown> = { ...GOOD_METADATA };
  delete withoutVersion.packageVersion;
  const printsInvalidMetadata = await writeExecutable(
    at('prints-invalid-metadata'),
    printingScript(
      JSON.stringify({
        ...withoutVersion,
        binaryContractVersion: 0,
        prp: { name: 'paperclip.runner', minimumVersion: 3, maximumVersion: 2 },
      }),
    ),
  );

  const probesEnvironment = await writeExecutable(
    at('probes-environment'),
    paddedScript(
      GOOD_METADATA,
      0,
      'if read -r _line; then stdin=data; else stdin=eof; fi\nprobe="${HOME:-}|${PAPERCLIP_RESOLVER_TEST_SECRET:-}|$*|$stdin"',
    ),
  );

  const notExecutableFormatRanMarker = at('no-shebang.ran');
  const notExecutableFormat = await writeExecutable(
    at('no-shebang'),
    `: > ${shQuote(notExecutableFormatRanMarker)}\nprintf '%s\\n' ${shQuote(JSON.stringify(GOOD_METADATA))}\n`,
  );

  const nonExecutable = await writeExecutable(
    at('non-executable'),
    printingScript(JSON.stringify(GOOD_METADATA)),
    0o644,
  );
  const directory = at('a-directory');
  await mkdir(directory);
  const danglingSymlink = at('dangling-symlink');
  await symlink(at('no-such-target'), danglingSymlink);
  const symlinkToGood = at('symlink-to-good');
  await symlink(good.path, symlinkToGood);

  const bareNameDir = at('bare-name');
  await mkdir(bareNameDir);
  await writeExecutable(
    join(bareNameDir, 'paperclip-runnerd'),
    printingScript(JSON.stringify(GOOD_METADATA)),
  );

  return {
    dir,
    good,
    wrongDigest,
    wrongDigestRanMarker,
    exitsOne,
    killsItself,
    sleeper,
    sleeperPidsFile,
    printsTenMegabytes,
    printsInvalidJson,
    printsTwoObjects,
    printsArray,
    printsExtraFields,
    extraFields,
    printsInvalidMetadata,
    probesEnvironment,
    notExecutableFormat,
    notExecutableFormatRanMarker,
    nonExecutable,
    directory,
    danglingSymlink,
    symlinkToGood,
    bareNameDir,
  };
}

export interface SwapPair {
  /** The executable the resolver is given: prints packageVersion `HASHED_VERSION`, 16 MB long. */
  readonly original: TestExecutable;
  /** Prints packageVersion `SWAPPED_VERSION`; the test renames it over `original.path`. */
  readonly replacement: TestExecutable;
  /** Created by the test just before the swap; `original` reports in `x_probe` whether it saw it. */
  readonly swapMarker: string;
}

export const HASHED_VERSION = '1.0.0-hashed';
export const SWAPPED_VERSION = '6.6.6-swapped';

/**
 * The "swapped between hash and exec" pair. `original` is long (16 MB of comment lines the shell
 * never reads), so copying it takes many turns of the event loop and the swap lands mid-copy.
 */
export async function createSwapPair(dir: string): Promise<SwapPair> {
  const swapMarker = join(dir, 'swap.marker');
  const original = await writeExecutable(
    join(dir, 'paperclip-runnerd'),
    paddedScript(
      { ...GOOD_METADATA, packageVersion: HASHED_VERSION },
      16 * 1024 * 1024,
      `if [ -e ${shQuote(swapMarker)} ]; then probe=swapped-before-exec; else probe=not-swapped; fi`,
    ),
  );
  const replacement = await writeExecutable(
    join(dir, 'replacement'),
    printingScript(JSON.stringify({ ...GOOD_METADATA, packageVersion: SWAPPED_VERSION })),
  );
  return { original, replacement, swapMarker };
}
