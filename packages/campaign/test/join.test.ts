// The join's first rule for --qualification: a record that is itself a refusal (qualified: false) is
// refused as such (qualification_record_refused, naming the failed checks) before any digest is
// compared, so a tampered release's own refusal is never reported as a digest change.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MAX_RELEASE_FILE_BYTES, qualificationRecordIssues } from '@paperclip-evals/qualification';
import { qualificationRecord } from '@paperclip-evals/test-kit/qualification-record';

import { CampaignError } from '../src/errors.ts';
import { joinRelease } from '../src/join.ts';
import { readCampaignRecord } from '../src/record.ts';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'campaign-join-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

// Digests the (empty) release dir does not hold: the old order reported release_digest_changed.
const refusal = (failed: readonly string[]) =>
  qualificationRecord(failed, {
    digests: {
      sha256sums: `sha256:${'a'.repeat(64)}`,
      files: { 'p.tgz': `sha256:${'b'.repeat(64)}` },
      buildMetadata: null,
      semanticCatalog: null,
      nativeExecutionSchema: null,
      seededFixture: null,
      consumerRequirements: null,
    },
  });

describe('joinRelease of a --release-dir that is not a folder', () => {
  it.each([
    ['does not exist', (dir: string) => join(dir, 'releas')],
    ['is a file', (dir: string) => join(dir, 'a-file.json')],
  ])('%s: a usage error at --release-dir, before anything is read', async (_what, pathOf) => {
    await writeFile(join(scratch, 'a-file.json'), '{}');
    const error = await joinRelease({ releaseDir: pathOf(scratch) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CampaignError);
    expect((error as CampaignError).code).toBe('paperclip_campaign_suite_invalid');
    expect((error as CampaignError).issues).toMatchObject([
      { code: 'release_dir_invalid', path: '--release-dir' },
    ]);
    expect(String((error as CampaignError).issues[0]?.expected)).toContain('SHA256SUMS');
  });
});

describe('joinRelease with a --qualification record', () => {
  it.each([[['sha256sums']], [['release-layout', 'package-manifest']]])(
    'refuses a recorded refusal as such, naming the failed checks %j',
    async (failed) => {
      const record = refusal(failed);
      expect(qualificationRecordIssues(record)).toEqual([]);
      const path = join(scratch, `${failed.join('+')}.json`);
      await writeFile(path, JSON.stringify(record));
      const error = await joinRelease({ releaseDir: scratch, qualificationRecord: path }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CampaignError);
      const { code, issues, message } = error as CampaignError;
      expect(code).toBe('paperclip_campaign_release_incompatible');
      expect(issues[0]?.code).toBe('qualification_record_refused');
      expect(issues.map((issue) => issue.code)).not.toContain('release_digest_changed');
      for (const id of failed) expect(message).toContain(id);
      expect(issues.slice(1).map((issue) => issue.component)).toEqual(failed);
    },
  );
});

describe('joinRelease with a --qualification record where nothing failed but a check was skipped', () => {
  it('refuses it, naming the skipped check and what it needs (an upstream release: "needs a provider")', async () => {
    const base = refusal([]);
    const record = {
      ...base,
      qualified: false,
      receipt: null,
      checks: base.checks.map((entry) =>
        entry.id === 'runnerd-eval-session'
          ? { id: entry.id, status: 'skipped' as const, detail: 'needs a provider: no offline provider' }
          : entry,
      ),
    };
    expect(qualificationRecordIssues(record)).toEqual([]);
    const path = join(scratch, 'skipped.json');
    await writeFile(path, JSON.stringify(record));
    const error = await joinRelease({ releaseDir: scratch, qualificationRecord: path }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CampaignError);
    const { issues, message } = error as CampaignError;
    expect(message).toContain('(nothing failed; runnerd-eval-session skipped)');
    expect(issues.map((issue) => [issue.code, issue.component])).toEqual([
      ['qualification_record_refused', undefined],
      ['check_skipped', 'runnerd-eval-session'],
    ]);
    expect(issues[1]?.message).toBe('runnerd-eval-session: skipped, needs a provider: no offline provider');
  });
});

describe('joinRelease comparing the release with its record', () => {
  it('refuses a release file over the cap by its size, never reading it (a sparse 8 GiB file)', async () => {
    const releaseDir = join(scratch, 'huge-release');
    await mkdir(releaseDir);
    await writeFile(join(releaseDir, 'p.tgz'), '');
    await truncate(join(releaseDir, 'p.tgz'), 8 * 1024 * 1024 * 1024); // sparse: costs no disk
    const record = refusal([]);
    expect(record.qualified).toBe(true);
    const path = join(scratch, 'qualified.json');
    await writeFile(path, JSON.stringify(record));
    const read = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
    const before = read();
    const error = await joinRelease({ releaseDir, qualificationRecord: path }).catch((e: unknown) => e);
    expect(read() - before).toBeLessThan(64 * 1024 * 1024);
    expect(error).toBeInstanceOf(CampaignError);
    expect((error as CampaignError).issues).toContainEqual(
      expect.objectContaining({
        code: 'release_digest_changed',
        path: 'p.tgz',
        received: `more than ${MAX_RELEASE_FILE_BYTES} bytes (not read)`,
      }),
    );
  });
});

describe('a record over the JSON text limit is refused by its size, never read (a sparse 8 GiB file)', () => {
  it.each([
    [
      'the --qualification record',
      (path: string) => joinRelease({ releaseDir: scratch, qualificationRecord: path }),
    ],
    ['a campaign record', (path: string) => readCampaignRecord(path)],
  ])('%s', async (_what, read) => {
    const path = join(scratch, `huge-${_what.replace(/\W/g, '')}.json`);
    await writeFile(path, '');
    await truncate(path, 8 * 1024 * 1024 * 1024);
    const bytesRead = (): number =>
      Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
    const before = bytesRead();
    const error = await read(path).catch((e: unknown) => e);
    expect(bytesRead() - before).toBeLessThan(64 * 1024 * 1024);
    expect(error).toBeInstanceOf(CampaignError);
    expect(error).toMatchObject({
      code: 'paperclip_campaign_record_invalid',
      issues: [expect.objectContaining({ code: 'input_too_large' })],
    });
  });
});
