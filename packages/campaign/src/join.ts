// The join, before anything of a campaign starts: the release is qualified now (qualifyRelease), or
// its qualification record is accepted when it says qualified and every digest it recorded still
// matches the release directory byte for byte; runnerd is resolved again by its path and sha256;
// and the six dimensions are negotiated again with Evals' own consumer requirements. Every problem
// is listed in one CampaignError('paperclip_campaign_release_incompatible') (exit 3); nothing is written and
// no eval-session is started before this returns.
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import {
  DEFAULT_MAX_INPUT_BYTES,
  isContractError,
  negotiateCompatibility,
  readJsonText,
} from '@paperclip-evals/contract';
import { digestFile, readRegularFile, resolveRunnerdArtifact } from '@paperclip-evals/node';
import {
  MAX_RELEASE_FILE_BYTES,
  SHA256SUMS_FILE,
  completeConsumerRequirements,
  loadEvalsConsumerRequirements,
  qualificationRecordIssues,
  qualifyRelease,
  releaseDirIssue,
} from '@paperclip-evals/qualification';

import { CampaignError } from './errors.js';

import type { CompatibilityReceipt, Issue } from '@paperclip-evals/contract';
import type { QualificationRecord, QualifyReleaseOptions } from '@paperclip-evals/qualification';

export interface JoinOptions {
  readonly releaseDir: string;
  /** An evals-qualification/v1 record to accept instead of qualifying again (every digest is checked). */
  readonly qualificationRecord?: string;
  /** Passed to qualifyRelease (pnpm command, temp folder, …). */
  readonly qualify?: Omit<QualifyReleaseOptions, 'releaseDir'>;
}

export interface Join {
  readonly qualification: QualificationRecord;
  /** `qualified`: qualified by this run; `accepted`: the given record, every digest matching. */
  readonly qualifiedBy: 'qualified' | 'accepted';
  readonly packageName: string;
  readonly packageVersion: string;
  readonly runnerdPath: string;
  readonly runnerdSha256: string;
  readonly receipt: CompatibilityReceipt;
  /** The release's tarball, verified. */
  readonly tarballPath: string;
}

const incompatible = (message: string, issues: readonly Issue[]): CampaignError =>
  new CampaignError('paperclip_campaign_release_incompatible', message, issues);

async function readRecord(path: string): Promise<QualificationRecord> {
  let bytes: Buffer;
  try {
    // Its size before a byte is read: over the JSON text limit, input_too_large (not read).
    bytes = await readRegularFile(path, { maxBytes: DEFAULT_MAX_INPUT_BYTES });
  } catch (error) {
    if (isContractError(error))
      throw new CampaignError(
        'paperclip_campaign_record_invalid',
        `${path} is not an evals-qualification/v1 record`,
        error.issues,
      );
    throw new CampaignError('paperclip_campaign_record_invalid', `cannot read ${path}`, [
      {
        code: 'qualification_record_unreadable',
        message: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        path: '--qualification',
        expected: 'a readable evals-qualification/v1 record (evals qualify --out)',
        received: (error as NodeJS.ErrnoException).code ?? 'unreadable',
      },
    ]);
  }
  const parsed = readJsonText(bytes);
  const issues = parsed.ok ? qualificationRecordIssues(parsed.value) : parsed.issues;
  if (issues.length > 0)
    throw new CampaignError(
      'paperclip_campaign_record_invalid',
      `${path} is not an evals-qualification/v1 record`,
      issues,
    );
  return (parsed as { ok: true; value: unknown }).value as QualificationRecord;
}

/** Every way the release directory is no longer what the record verified. */
async function digestDrift(releaseDir: string, record: QualificationRecord): Promise<Issue[]> {
  const issues: Issue[] = [];
  const names = (await readdir(releaseDir, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
  const recorded: Record<string, string | null> = {
    ...record.digests.files,
    [SHA256SUMS_FILE]: record.digests.sha256sums,
  };
  for (const name of new Set([...names, ...Object.keys(recorded)])) {
    const expected = recorded[name] ?? null;
    // Its size before its digest: a file over the cap qualification digests is never read (it could
    // not have been qualified), and is a change.
    const actual = names.includes(name)
      ? await digestFile(join(releaseDir, name), { maxBytes: MAX_RELEASE_FILE_BYTES }).then(
          (digested) => digested.digest,
          (error: unknown) => {
            if ((error as NodeJS.ErrnoException).code !== 'EFBIG') throw error;
            return `more than ${MAX_RELEASE_FILE_BYTES} bytes (not read)`;
          },
        )
      : null;
    if (expected !== actual)
      issues.push({
        code: 'release_digest_changed',
        message:
          actual === null
            ? `${name} is gone since it was qualified`
            : expected === null
              ? `${name} was not there when the release was qualified`
              : `${name} changed since it was qualified`,
        path: name,
        expected: expected ?? 'absent',
        received: actual ?? 'absent',
      });
  }
  return issues;
}

function failedCheckIds(record: QualificationRecord): string[] {
  return record.checks.filter((check) => check.status === 'fail').map((check) => check.id);
}

/** Why a record is a refusal: the checks that failed, or when none did, the checks skipped. */
function refusedBecause(record: QualificationRecord): string {
  const failed = failedCheckIds(record);
  if (failed.length > 0) return `${failed.join(', ')} failed`;
  const skipped = record.checks.filter((check) => check.status === 'skipped').map((check) => check.id);
  return `nothing failed; ${skipped.join(', ')} skipped`;
}

/**
 * Every failed check's issues — or, when no check failed, one per skipped check (what it needs: a
 * skipped check is why such a record is a refusal); from a --qualification record (`source`), led
 * by qualification_record_refused saying the record is a refusal and why.
 */
function refusalIssues(record: QualificationRecord, source: string | null): Issue[] {
  const failed = record.checks.flatMap((check) =>
    check.status === 'fail'
      ? (check.issues ?? [{ code: 'check_failed', message: check.detail }]).map((issue) => ({
          ...issue,
          component: issue.component ?? check.id,
          message: `${check.id}: ${issue.message}`,
        }))
      : [],
  );
  const reasons =
    failed.length > 0
      ? failed
      : record.checks
          .filter((check) => check.status === 'skipped')
          .map((check) => ({
            code: 'check_skipped',
            component: check.id,
            message: `${check.id}: skipped, ${check.detail}`,
            expected: 'pass',
            received: 'skipped',
          }));
  if (source === null) return reasons;
  return [
    {
      code: 'qualification_record_refused',
      message: `${source} records that the release was not qualified: run evals qualify on a release that qualifies, and pass its record`,
      path: '--qualification',
      expected: 'a record with qualified: true',
      received: `qualified: false (${refusedBecause(record)})`,
    },
    ...reasons,
  ];
}

/** The join, or CampaignError('paperclip_campaign_release_incompatible') with every issue. */
export async function joinRelease(options: JoinOptions): Promise<Join> {
  const releaseDir = resolve(options.releaseDir);
  // A mistyped --release-dir is said by its flag (a usage error), as evals qualify says it.
  const notAFolder = await releaseDirIssue(options.releaseDir);
  if (notAFolder !== null)
    throw new CampaignError(
      'paperclip_campaign_suite_invalid',
      `the release directory ${notAFolder.message}`,
      [notAFolder],
    );
  let record: QualificationRecord;
  let qualifiedBy: Join['qualifiedBy'];
  if (options.qualificationRecord !== undefined) {
    record = await readRecord(options.qualificationRecord);
    qualifiedBy = 'accepted';
    // A record that is itself a refusal is refused as such, before any digest is compared.
    if (!record.qualified)
      throw incompatible(
        `${options.qualificationRecord} records a refusal: the release was not qualified (${refusedBecause(record)})`,
        refusalIssues(record, options.qualificationRecord),
      );
    const drift = await digestDrift(releaseDir, record);
    if (drift.length > 0)
      throw incompatible('the release is not the one its qualification record verified', drift);
  } else {
    record = await qualifyRelease({ ...options.qualify, releaseDir });
    qualifiedBy = 'qualified';
  }
  if (!record.qualified) {
    throw incompatible('the release is not qualified', refusalIssues(record, null));
  }
  const { name, version, buildMetadata, tarball } = record.package;
  const runnerdFile = record.runnerd.file;
  const runnerdSha256 = record.runnerd.sha256;
  const conformance = record.conformance;
  if (
    name === null ||
    version === null ||
    tarball === null ||
    runnerdFile === null ||
    runnerdSha256 === null ||
    conformance === null ||
    buildMetadata === undefined ||
    buildMetadata === null
  )
    throw incompatible('the qualification record lacks what a campaign negotiates with', [
      {
        code: 'qualification_record_incomplete',
        message:
          'a qualified record names the package, its build metadata, runnerd and the driver conformance',
        path: '/package/buildMetadata',
        expected: 'a record written by this version of evals qualify',
        received: 'a record without them (qualify the release again)',
      },
    ]);
  const issues: Issue[] = [];
  const runnerdPath = join(releaseDir, runnerdFile);
  let runnerd;
  try {
    runnerd = await resolveRunnerdArtifact({ executablePath: runnerdPath, expectedSha256: runnerdSha256 });
  } catch (error) {
    if (!isContractError(error)) throw error;
    issues.push(...error.issues.map((issue) => ({ ...issue, component: issue.component ?? 'runnerd' })));
  }
  let receipt: CompatibilityReceipt | null = null;
  if (runnerd !== undefined) {
    // Upstream's package.json says 0.0.0 and its build metadata the compatibility constant: the join
    // is negotiated on the build metadata's version, as upstream's own gate negotiates it.
    const consumer = completeConsumerRequirements(loadEvalsConsumerRequirements(), {
      packageVersion: buildMetadata.package.version,
      descriptor: conformance.descriptor,
    });
    try {
      receipt = negotiateCompatibility({
        package: buildMetadata,
        runnerd: runnerd.buildMetadata,
        consumer,
        catalog: {
          version: buildMetadata.semanticCatalog.version,
          sha256: record.digests.semanticCatalog ?? 'sha256:unknown',
        },
      });
    } catch (error) {
      if (!isContractError(error)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0 || receipt === null)
    throw incompatible('the release does not join: nothing was started', issues);
  return {
    qualification: record,
    qualifiedBy,
    packageName: name,
    packageVersion: version,
    runnerdPath,
    runnerdSha256,
    receipt,
    tarballPath: join(releaseDir, tarball),
  };
}
