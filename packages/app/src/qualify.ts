// Qualification to a record file: the workflow behind `evals qualify`. It checks the release
// directory and the output path before the long work (node's outputTarget refuses a directory,
// socket, missing folder…; a file must not land in the release directory, where SHA256SUMS would
// not list it), qualifies the release (the qualification package) and writes the
// evals-qualification/v1 record (atomically for a file, in place for a device or FIFO).
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { outputTarget } from '@paperclip-evals/node';
import { qualifyRelease, releaseDirIssue, writeQualificationRecord } from '@paperclip-evals/qualification';

import type { QualificationRecord, QualifyReleaseOptions } from '@paperclip-evals/qualification';

import { AppError } from './errors.js';

export interface QualifyRequest {
  readonly releaseDir: string;
  /** Where to write the record; a file must be outside the release directory. */
  readonly out?: string;
  /** Told as each check starts and is decided (qualifyRelease's onCheck). */
  readonly onCheck?: QualifyReleaseOptions['onCheck'];
}

export interface QualifyOutcome {
  readonly record: QualificationRecord;
  /** Where the record was written: the path as given, and whether that is this process's stdout (`-`, /dev/stdout). */
  readonly written?: { readonly path: string; readonly toStdout: boolean };
}

export async function qualify(request: QualifyRequest): Promise<QualifyOutcome> {
  const releaseDir = await existingDirectory(request.releaseDir);
  const out = request.out === undefined ? undefined : await outputPath(request.out, releaseDir);
  const record = await qualifyRelease({
    releaseDir,
    ...(request.onCheck === undefined ? {} : { onCheck: request.onCheck }),
  });
  if (out === undefined) return { record };
  await writeQualificationRecord(out.path, record);
  return { record, written: out };
}

/** The release directory `--release-dir` names, resolved; qualification's release_dir_invalid when it is not a folder. */
async function existingDirectory(path: string): Promise<string> {
  const issue = await releaseDirIssue(path);
  if (issue !== null)
    throw new AppError('paperclip_app_input_invalid', `the release directory ${issue.message}`, [issue]);
  return realpath(resolve(path));
}

/** The output path checked before the long work; returns the user's path (errors name it). */
async function outputPath(path: string, releaseDir: string): Promise<{ path: string; toStdout: boolean }> {
  const target = await outputTarget(path);
  if (target.kind === 'stdio') return { path, toStdout: target.fd === 1 };
  if (target.kind === 'new' || target.kind === 'file') {
    const absolute =
      target.kind === 'file'
        ? target.path
        : join(await realpath(dirname(target.path)), basename(target.path));
    const inside = relative(releaseDir, absolute);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw new AppError(
        'paperclip_app_request_invalid',
        `--out ${path} is inside the release directory, where it would be a file SHA256SUMS does not list`,
      );
    }
  }
  return { path, toStdout: false };
}
