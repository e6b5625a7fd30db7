// qualifyRelease: the Evals side of release qualification. It reads the release directory's layout,
// runs the table of checks (checks/, one module per check, in dependency order; a check whose need
// gave nothing is recorded as skipped "needs X") and assembles the evals-qualification/v1 record
// from what the checks found. Everything temporary (the tarball copy, the extracted package, the
// consumer) lives in one private directory under os.tmpdir() that is removed on every outcome. No
// clock is read: a timestamp, if wanted, comes in as `evaluatedAt`.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createSchemaAjv } from '@paperclip-evals/contract';
import { guardPrivatePath } from '@paperclip-evals/node';

import { QUALIFICATION_PLAN } from './checks/index.js';
import { runChecks } from './checks/runner.js';
import { loadEvalsConsumerRequirements } from './consumer-requirements.js';
import {
  QUALIFICATION_CHECK_IDS,
  QUALIFICATION_RECORD_V1,
  currentEvaluator,
  qualificationRecordIssues,
} from './record.js';
import { readReleaseLayout } from './release-dir.js';

import type { QualificationInput, QualifyReleaseOptions, RecordFacts } from './checks/context.js';
import type { CheckResult } from './checks/runner.js';
import type {
  QualificationCheck,
  QualificationCheckId,
  QualificationIssue,
  QualificationRecord,
} from './record.js';

export type { QualifyReleaseOptions } from './checks/context.js';

/** Name prefix of the private work directory under os.tmpdir(). */
export const WORK_DIR_PREFIX = 'paperclip-evals-qualify-';

/**
 * Qualifies one release directory and returns the evals-qualification/v1 record (qualified or not).
 * Rejects only when the release directory itself cannot be read (the fs error), when Evals' own
 * consumer requirements are broken, or on an internal error.
 */
export async function qualifyRelease(options: QualifyReleaseOptions): Promise<QualificationRecord> {
  if (options.evaluatedAt !== undefined && !isDateTime(options.evaluatedAt)) {
    throw new TypeError(
      `evaluatedAt must be an RFC 3339 date-time, received ${JSON.stringify(options.evaluatedAt)}`,
    );
  }
  const releaseDir = resolve(options.releaseDir);
  const baseRequirements = loadEvalsConsumerRequirements(options.consumerRequirementsFile);
  const layout = await readReleaseLayout(releaseDir, {
    ...(options.platform === undefined ? {} : { platform: options.platform }),
    ...(options.arch === undefined ? {} : { arch: options.arch }),
  });
  const workDir = await mkdtemp(join(options.tempDir ?? tmpdir(), WORK_DIR_PREFIX));
  // Removed on SIGINT/SIGTERM too (with every child's process group): node's child-cleanup.
  const releaseWorkDir = guardPrivatePath(workDir);
  try {
    await chmod(workDir, 0o700);
    const input: QualificationInput = { releaseDir, workDir, options, baseRequirements, layout };
    const onCheck = options.onCheck;
    const results = await runChecks(
      QUALIFICATION_PLAN,
      input,
      onCheck === undefined
        ? {}
        : {
            onStart: (id, index, total) => {
              onCheck({ kind: 'start', id, index, total });
            },
            onDone: (result, index, total) => {
              onCheck({
                kind: 'done',
                id: result.id,
                status: result.status,
                detail: result.detail,
                index,
                total,
              });
            },
          },
    );
    return assembleRecord(input, results);
  } finally {
    await rm(workDir, { recursive: true, force: true });
    releaseWorkDir();
  }
}

/** The record: every check's entry in the documented order, and the facts the checks found. */
function assembleRecord(
  { releaseDir, options, layout }: QualificationInput,
  results: readonly CheckResult<QualificationCheckId, RecordFacts>[],
): QualificationRecord {
  const byId = new Map(results.map((result) => [result.id, result]));
  const checks = QUALIFICATION_CHECK_IDS.map((id): QualificationCheck => {
    const result = byId.get(id);
    if (result === undefined) throw new Error(`internal: check ${id} was never decided`);
    return {
      id,
      status: result.status,
      detail: result.detail,
      ...(result.issues === undefined ? {} : { issues: result.issues as readonly QualificationIssue[] }),
    };
  });
  const facts = mergeFacts(results);
  const record: QualificationRecord = {
    schema: QUALIFICATION_RECORD_V1,
    qualified: checks.every((check) => check.status === 'pass'),
    releaseDir,
    ...(options.evaluatedAt === undefined ? {} : { evaluatedAt: options.evaluatedAt }),
    evaluator: currentEvaluator(),
    package: {
      name: facts.packageName === '' ? null : (facts.packageName ?? null),
      version: facts.packageVersion === '' ? null : (facts.packageVersion ?? null),
      tarball: layout.tarball,
      tarballSha256: facts.tarballSha256 ?? null,
      buildMetadata: facts.packageBuildMetadata ?? null,
    },
    runnerd: {
      file: layout.runnerd,
      sha256: facts.runnerdSha256 ?? null,
      byteSize: facts.runnerdByteSize ?? null,
      buildMetadata: facts.artifact?.buildMetadata ?? null,
      buildProfile: facts.runnerdBuildProfile ?? null,
    },
    receipt: facts.receipt ?? null,
    consumerRequirements: facts.consumerRequirements ?? null,
    conformance: facts.conformance ?? null,
    checks,
    digests: {
      sha256sums: facts.sha256sums ?? null,
      files: facts.files ?? {},
      buildMetadata: facts.digests?.buildMetadata ?? null,
      semanticCatalog: facts.digests?.semanticCatalog ?? null,
      nativeExecutionSchema: facts.digests?.nativeExecutionSchema ?? null,
      seededFixture: facts.digests?.seededFixture ?? null,
      consumerRequirements: facts.digests?.consumerRequirements ?? null,
    },
  };
  const issues = qualificationRecordIssues(record);
  if (issues.length > 0) {
    throw new Error(
      `internal: the qualification record breaks its schema: ${JSON.stringify(issues, null, 2)}`,
    );
  }
  return record;
}

/** Every check's facts, later checks' over earlier ones' (digests merged key by key). */
function mergeFacts(results: readonly CheckResult<QualificationCheckId, RecordFacts>[]): RecordFacts {
  let merged: RecordFacts = {};
  for (const { facts } of results) {
    if (facts === undefined) continue;
    merged = { ...merged, ...facts, digests: { ...merged.digests, ...facts.digests } };
  }
  return merged;
}

let dateTimeValidator: ReturnType<ReturnType<typeof createSchemaAjv>['compile']> | undefined;

function isDateTime(text: string): boolean {
  dateTimeValidator ??= createSchemaAjv().compile({ type: 'string', format: 'date-time' });
  return dateTimeValidator(text) === true;
}
