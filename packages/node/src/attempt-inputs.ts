// Ingest's reading of its inputs: node's read-and-classify loop (readBundles) over the expanded
// inputs, where the native-execution bundle an eval-session artifact of the same run reads is one
// attempt, not two. A campaign's work folder holds each try's artifact and, below it, the bundle it
// references: walked whole, the bundle is met again as an input of its own. Read through its
// artifact it is that attempt; met again bare (the same file, the same bytes) it is classified
// 'artifact_bundle', once per artifact read of it — a second bare reading of the same file is the
// same bundle given twice, classified as any input. Whatever the order: a first look at every input
// file finds the artifacts and the files they reference, and those files, when given as inputs, are
// classified after every other input, when it is known whether an artifact read them.
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { EVAL_SESSION_ARTIFACT_V1, sha256Digest } from '@paperclip-evals/contract';

import { expandBundleInputs } from './bundle-inputs.js';
import { readBundles } from './bundle-reads.js';
import { readFileBytesSync } from './native-execution-input.js';

import type { BundleInput } from './bundle-inputs.js';
import type { BundleRead, ReadBundlesOptions } from './bundle-reads.js';

/** An input that is the bundle an eval-session artifact of this run read: the same file, the same bytes. */
export interface ArtifactBundleRead {
  readonly status: 'artifact_bundle';
  readonly input: BundleInput;
  /** The artifact input that read it (as shown). */
  readonly artifact: string;
  readonly fileSha256: string;
}

export type AttemptInputRead = BundleRead | ArtifactBundleRead;

/** Reads and classifies every input (expandBundleInputs, then readBundles); see the head of this file. */
export async function* readAttemptInputs(
  inputs: readonly string[],
  options: Omit<ReadBundlesOptions, 'readAhead'> = {},
): AsyncGenerator<AttemptInputRead> {
  const referenced = await referencedBundleFiles(inputs, options.maxBytes);
  const later: { input: BundleInput; file: string }[] = [];
  async function* now(): AsyncGenerator<BundleInput> {
    for await (const input of expandBundleInputs(inputs)) {
      const file = referenced.size === 0 ? null : fileIdentity(input);
      if (file !== null && referenced.has(file)) later.push({ input, file });
      else yield input;
    }
  }
  // What each artifact read: its bundle file and the sha256 of the bytes it verified, once per read.
  const read = new Map<string, { artifact: string; fileSha256: string }[]>();
  for await (const result of readBundles(now(), options)) {
    const { input } = result;
    if (result.status === 'valid' && result.parsed.bundle !== null && input.path !== null) {
      const reference = result.parsed.evalSession?.artifact.nativeExecution;
      const file = reference === undefined ? null : fileIdOf(join(dirname(input.path), reference.path));
      if (file !== null) {
        const readings = read.get(file) ?? [];
        readings.push({ artifact: input.display, fileSha256: result.parsed.fileSha256 });
        read.set(file, readings);
      }
    }
    yield result;
  }
  for (const { input, file } of later) {
    const readings = read.get(file) ?? [];
    const fileSha256 = readings.length === 0 ? null : sha256OfFile(input.path as string, options.maxBytes);
    const index = readings.findIndex((reading) => reading.fileSha256 === fileSha256);
    const [reading] = index === -1 ? [] : readings.splice(index, 1);
    if (reading !== undefined && fileSha256 !== null)
      yield { status: 'artifact_bundle', input, artifact: reading.artifact, fileSha256 };
    // Not read by an artifact (it was invalid, or these are other bytes), or read once already.
    else yield* readBundles([input], options);
  }
}

/**
 * The files the eval-session artifacts among the inputs reference (by file identity): a first look,
 * not a judgement — every input is judged later by the loop. Bytes that do not hold the text
 * `eval-session-artifact` cannot declare that schema unless they spell it with `\u` escapes (the
 * parser reads UTF-8 only), so only files holding one or the other are parsed here.
 */
async function referencedBundleFiles(
  inputs: readonly string[],
  maxBytes: number | undefined,
): Promise<Set<string>> {
  const files = new Set<string>();
  for await (const input of expandBundleInputs(inputs)) {
    if (input.path === null || input.refused !== undefined) continue;
    let bytes: Buffer;
    try {
      bytes = readFileBytesSync(input.path, maxBytes === undefined ? {} : { maxBytes });
    } catch {
      continue; // the loop reports it
    }
    if (!bytes.includes(ARTIFACT_MARK) && !bytes.includes(UNICODE_ESCAPE)) continue;
    const path = referencedPath(bytes);
    const file = path === null ? null : fileIdOf(join(dirname(input.path), path));
    if (file !== null) files.add(file);
  }
  return files;
}

const ARTIFACT_MARK = Buffer.from('eval-session-artifact');
const UNICODE_ESCAPE = Buffer.from('\\u');

/** The `nativeExecution.path` an eval-session artifact's bytes name, or null (not one, or no reference). */
function referencedPath(bytes: Buffer): string | null {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { schema, nativeExecution } = value as { schema?: unknown; nativeExecution?: { path?: unknown } };
  if (schema !== EVAL_SESSION_ARTIFACT_V1 || typeof nativeExecution?.path !== 'string') return null;
  return nativeExecution.path;
}

/** An input file's identity (device and inode, so two paths to one file agree), or null: stdin, refused, not there. */
function fileIdentity(input: BundleInput): string | null {
  return input.path === null || input.refused !== undefined ? null : fileIdOf(input.path);
}

function fileIdOf(path: string): string | null {
  try {
    const info = statSync(path, { bigint: true });
    return info.isFile() ? `${info.dev}:${info.ino}` : null;
  } catch {
    return null;
  }
}

function sha256OfFile(path: string, maxBytes: number | undefined): string | null {
  try {
    return sha256Digest(readFileBytesSync(path, maxBytes === undefined ? {} : { maxBytes }));
  } catch {
    return null;
  }
}
