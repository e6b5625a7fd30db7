// Explicit paperclip-runnerd resolution: the caller gives the executable's path and its sha256;
// the bytes are hashed into a private copy (a 0700 directory), and only that copy is executed,
// with `--build-metadata`, no shell and an empty environment. PATH and the workspace are never
// searched. Failures are PaperclipRunnerdArtifactError with one issue: path_invalid,
// digest_invalid, digest_mismatch, metadata_unavailable or metadata_invalid.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { PaperclipRunnerdArtifactError } from '../errors.js';
import { SCHEMA_IDS, schemaViolations } from '../schemas.js';

import type { PaperclipRunnerdBuildMetadata } from '../build-info.js';

const DEFAULT_RUNNERD_METADATA_TIMEOUT_MS = 5000;
const MAX_METADATA_BYTES = 65_536;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export interface ResolvePaperclipRunnerdArtifactOptions {
  /** The executable itself (absolute, or relative to the working directory); never a PATH lookup. */
  readonly executablePath: string;
  /** `sha256:` + 64 lowercase hex digits. */
  readonly expectedSha256: string;
  readonly metadataTimeoutMs?: number;
}

export interface PaperclipRunnerdArtifact {
  readonly executablePath: string;
  readonly sha256: string;
  readonly byteSize: number;
  readonly buildMetadata: PaperclipRunnerdBuildMetadata;
}

export async function resolvePaperclipRunnerdArtifact(
  options: ResolvePaperclipRunnerdArtifactOptions,
): Promise<PaperclipRunnerdArtifact> {
  const { executablePath, expectedSha256 } = options;
  if (typeof executablePath !== 'string' || executablePath === '' || executablePath.includes('\0')) {
    throw new PaperclipRunnerdArtifactError('path_invalid', 'executablePath must be a non-empty path');
  }
  if (typeof expectedSha256 !== 'string' || !DIGEST.test(expectedSha256)) {
    throw new PaperclipRunnerdArtifactError(
      'digest_invalid',
      'expectedSha256 must be sha256: followed by 64 lowercase hex digits',
    );
  }
  const absolutePath = resolve(executablePath);
  const info = await lstat(absolutePath).catch((cause: unknown) => {
    throw new PaperclipRunnerdArtifactError('path_invalid', `${absolutePath} cannot be read`, { cause });
  });
  if (!info.isFile() || (info.mode & 0o111) === 0) {
    throw new PaperclipRunnerdArtifactError(
      'path_invalid',
      `${absolutePath} is not an executable regular file (symbolic links are not followed)`,
    );
  }

  const privateDir = await mkdtemp(join(tmpdir(), 'paperclip-runnerd-'));
  try {
    await chmod(privateDir, 0o700);
    const copyPath = join(privateDir, basename(absolutePath));
    const hash = createHash('sha256');
    let byteSize = 0;
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        byteSize += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(
      createReadStream(absolutePath),
      tee,
      createWriteStream(copyPath, { flags: 'wx', mode: 0o700 }),
    );
    const sha256 = `sha256:${hash.digest('hex')}`;
    if (sha256 !== expectedSha256) {
      throw new PaperclipRunnerdArtifactError(
        'digest_mismatch',
        `${absolutePath} has digest ${sha256}, not the expected ${expectedSha256}`,
      );
    }
    const stdout = await runBuildMetadata(copyPath, privateDir, options.metadataTimeoutMs);
    let printed: unknown;
    try {
      printed = JSON.parse(stdout);
    } catch (cause) {
      throw new PaperclipRunnerdArtifactError(
        'metadata_invalid',
        '--build-metadata did not print one JSON object',
        { cause },
      );
    }
    const buildMetadata = parsePaperclipRunnerdBuildMetadata(printed);
    return { executablePath: absolutePath, sha256, byteSize, buildMetadata };
  } finally {
    await rm(privateDir, { recursive: true, force: true });
  }
}

function runBuildMetadata(
  copyPath: string,
  cwd: string,
  timeoutMs = DEFAULT_RUNNERD_METADATA_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolveOutput, reject) => {
    execFile(
      copyPath,
      ['--build-metadata'],
      {
        cwd,
        env: {},
        shell: false,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_METADATA_BYTES,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolveOutput(stdout);
          return;
        }
        const detail = stderr.trim().slice(0, 500);
        reject(
          new PaperclipRunnerdArtifactError(
            'metadata_unavailable',
            `\`${basename(copyPath)} --build-metadata\` failed: ${error.message}${detail === '' ? '' : ` (${detail})`}`,
            { cause: error },
          ),
        );
      },
    );
  });
}

/**
 * Parses what `--build-metadata` printed (an already parsed JSON value): valid against the shipped
 * schema, prp.minimumVersion <= maximumVersion, and packageVersion and prp.name not blank after trim. Returns upstream's eight fields only: anything
 * else a build prints (prpTransportModes, ...) is dropped, not refused.
 */
export function parsePaperclipRunnerdBuildMetadata(value: unknown): PaperclipRunnerdBuildMetadata {
  const problems = schemaViolations(SCHEMA_IDS.runnerdBuildMetadataV1, value).map(
    (violation) => `${violation.path || '/'} ${violation.message}`,
  );
  const metadata = value as PaperclipRunnerdBuildMetadata;
  if (problems.length === 0 && metadata.prp.minimumVersion > metadata.prp.maximumVersion) {
    problems.push('/prp minimumVersion is above maximumVersion');
  }
  // Upstream's text(): a string with something left after trim (the schema's minLength lets " " in).
  if (problems.length === 0) {
    for (const [path, text] of [
      ['/packageVersion', metadata.packageVersion],
      ['/prp/name', metadata.prp.name],
    ] as const) {
      if (text.trim() === '') problems.push(`${path} must be a non-empty string, not only whitespace`);
    }
  }
  if (problems.length > 0) {
    throw new PaperclipRunnerdArtifactError(
      'metadata_invalid',
      `invalid runnerd build metadata: ${problems.join('; ')}`,
    );
  }
  return {
    schema: metadata.schema,
    binaryName: metadata.binaryName,
    packageName: metadata.packageName,
    packageVersion: metadata.packageVersion,
    binaryContractVersion: metadata.binaryContractVersion,
    nativeExecutionVersion: metadata.nativeExecutionVersion,
    harnessDriverVersion: metadata.harnessDriverVersion,
    prp: {
      name: metadata.prp.name,
      minimumVersion: metadata.prp.minimumVersion,
      maximumVersion: metadata.prp.maximumVersion,
    },
  };
}
