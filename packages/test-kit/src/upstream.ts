// Test support: where the upstream Paperclip runner contract data lives, and Ajv instances holding
// upstream's schemas and ours. Upstream files are read at run time from ../shared beside the checkout
// (never copied into the repo); see shared/upstream/paperclip-runner/PROVENANCE.md. Without them
// (a fresh clone) importing this still works: tests ask `needsUpstream` whether they can run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

import { createSchemaAjv } from '@paperclip-evals/contract';
import { REPO_ROOT } from './repo.ts';
import { needs } from './requirement.ts';

import type { Options } from 'ajv/dist/2020.js';

/** Upstream data beside the checkout: `paperclip-runner/` (the runner contract) and `attest/` (the peer checks engine). */
export const UPSTREAM_DIR = resolve(REPO_ROOT, '../shared/upstream');
/** Upstream's `protocol/` folder: `schemas/`, `fixtures/`, `manifest.json`. */
export const UPSTREAM_PROTOCOL_DIR = join(UPSTREAM_DIR, 'paperclip-runner/protocol');
/** The peer checks engine's sources, with its public trace fixtures. */
export const UPSTREAM_ATTEST_DIR = join(UPSTREAM_DIR, 'attest');
/**
 * Whether upstream's contract data is beside the checkout. A fresh clone has none: the tests that
 * compare with it are skipped there (and fail under CI) — see `needsUpstream`.
 */
export const UPSTREAM_PRESENT = existsSync(UPSTREAM_PROTOCOL_DIR);
/** What is missing, in one line. */
export const UPSTREAM_MISSING = upstreamMissing(UPSTREAM_PROTOCOL_DIR);

function upstreamMissing(dir: string): string {
  return `upstream data not found at ${dir} (these tests read the shared/ folder beside the checkout; CI has it)`;
}

/**
 * For a test file's top level: whether the upstream comparisons it names (`skips`) can run, reading
 * `dir` (default: the runner protocol); when it is missing, one notice (under CI one failing test)
 * says so. Use with `describe.skipIf(!…)`, and read upstream files only inside the tests or hooks.
 */
export function needsUpstream(testFile: string, skips: string, dir: string = UPSTREAM_PROTOCOL_DIR): boolean {
  return needs({ testFile, skips, present: existsSync(dir), missing: upstreamMissing(dir) });
}

export const UPSTREAM_SCHEMAS_DIR = join(UPSTREAM_PROTOCOL_DIR, 'schemas');
export const UPSTREAM_FIXTURES_DIR = join(UPSTREAM_PROTOCOL_DIR, 'fixtures');

/** Our own JSON Schemas. */
export const OUR_SCHEMAS_DIR = join(REPO_ROOT, 'schemas');

/**
 * Upstream's own `date-time` format, as its validators compile it (paperclipai/paperclip,
 * packages/paperclip-runner/scripts/protocol-contract.mjs, `compileProtocolValidators`): UTC `Z`,
 * upper-case `T`, three fraction digits or none, and no calendar check. Written out here, not
 * imported from our sources, so that a drift of ours from upstream's shows in the comparisons.
 */
export const UPSTREAM_DATE_TIME_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;

/**
 * Upstream's schemas are not written for Ajv's strict mode; `date-time` (the only format they use)
 * is upstream's pattern, not ajv-formats' lenient RFC 3339 rule.
 */
export const UPSTREAM_AJV_OPTIONS: Options = {
  strict: false,
  formats: { 'date-time': UPSTREAM_DATE_TIME_FORMAT },
};

/** Parse a JSON file. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** Every `*.json` file below `dir` (recursively), in a stable order. */
export function listJsonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((relative) => relative.endsWith('.json'))
    .sort()
    .map((relative) => join(dir, relative));
}

/** The `$id` of every schema file below `dir`. */
export function schemaIds(dir: string): string[] {
  return listJsonFiles(dir).map((file) => {
    const schema = readJson(file);
    const id = typeof schema === 'object' && schema !== null ? (schema as { $id?: unknown }).$id : undefined;
    if (typeof id !== 'string') throw new Error(`${file} has no $id`);
    return id;
  });
}

function loadAjv(dir: string, options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  for (const file of listJsonFiles(dir)) ajv.addSchema(readJson(file) as object);
  return ajv;
}

/** An Ajv 2020-12 instance (non-strict, upstream's date-time format) holding every upstream protocol schema. */
export function loadUpstreamAjv(): Ajv2020 {
  return loadAjv(UPSTREAM_SCHEMAS_DIR, UPSTREAM_AJV_OPTIONS);
}

/**
 * The contract package's own registry Ajv (strict, all errors, formats) over our `schemas/` folder
 * (or `dir`), with every schema compiled up front so that strict-mode and missing-$ref errors throw here.
 */
export function loadOurAjv(dir: string = OUR_SCHEMAS_DIR): Ajv2020 {
  const ajv = createSchemaAjv(dir);
  for (const id of schemaIds(dir)) ajv.getSchema(id);
  return ajv;
}
