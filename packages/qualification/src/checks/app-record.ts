// Check app-record: the App's clean-consumer-conformance record passed, names the tarball and
// runnerd with the digests and sizes Evals computed, and states a release runnerd (how "never a
// debug binary" is proven; see ../app-record.ts).
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { declaredBuildProfile, isContractError, sha256Digest } from '@paperclip-evals/contract';
import { readRegularFile } from '@paperclip-evals/node';

import { MAX_APP_RECORD_BYTES, judgeAppRecord } from '../app-record.js';
import { verifiedDigest } from '../release-dir.js';
import { fail, judge, lacking } from './context.js';

import type { QualificationCheckId } from '../record.js';
import type { Unmet } from './runner.js';
import type { QualificationCheckDefinition } from './context.js';

export const appRecord: QualificationCheckDefinition = {
  id: 'app-record',
  needs: ['release-layout', 'sha256sums', 'tarball-extract', 'build-metadata'],
  uses: ['runnerd-resolve'],
  run: async ({ releaseDir }, values) => {
    const layout = values.need('release-layout');
    const sums = values.need('sha256sums');
    const tarballSha256 = values.need('tarball-extract').sha256;
    // The gate negotiates on the build metadata's version (upstream's package.json says 0.0.0).
    const packageVersion = values.need('build-metadata').package.version;
    const unmet: Unmet<QualificationCheckId>[] = [];
    // The record, and the runnerd it must name, are used only once SHA256SUMS verified them.
    const recordDigest = layout.appRecord === null ? null : verifiedDigest(sums, layout.appRecord);
    if (recordDigest === null) unmet.push({ need: 'release-layout', why: 'an App record' });
    else if ('why' in recordDigest) unmet.push({ need: 'sha256sums', why: recordDigest.why });
    const runnerdDigest = layout.runnerd === null ? null : verifiedDigest(sums, layout.runnerd);
    if (runnerdDigest === null) unmet.push({ need: 'release-layout', why: 'a runnerd for this host' });
    else if ('why' in runnerdDigest) unmet.push({ need: 'sha256sums', why: runnerdDigest.why });
    if (
      unmet.length > 0 ||
      layout.appRecord === null ||
      layout.tarball === null ||
      layout.runnerd === null ||
      recordDigest === null ||
      'why' in recordDigest ||
      runnerdDigest === null ||
      'why' in runnerdDigest
    ) {
      return lacking(unmet);
    }
    const runnerdSha256 = values.found('runnerd-resolve')?.artifact.sha256 ?? runnerdDigest.sha256;
    // Its size before a byte is read: a record over the limit is input_too_large, never read.
    const bytes = await readRegularFile(join(releaseDir, layout.appRecord), {
      maxBytes: MAX_APP_RECORD_BYTES,
    }).catch((error: unknown) => {
      if (isContractError(error)) return error;
      throw error;
    });
    if (isContractError(bytes)) {
      const file = layout.appRecord;
      return fail(
        `${file} is over the ${MAX_APP_RECORD_BYTES}-byte limit of an App record (not read)`,
        bytes.issues.map((issue) => ({ ...issue, file })),
      );
    }
    if (sha256Digest(bytes) !== recordDigest.sha256) {
      return fail(`${layout.appRecord} changed while it was being qualified`, [
        {
          code: 'app_record_changed',
          message: `${layout.appRecord} changed while it was being qualified: the bytes read are not the ones SHA256SUMS lists, so they are not judged`,
          file: layout.appRecord,
          expected: recordDigest.sha256,
          received: sha256Digest(bytes),
        },
      ]);
    }
    const size = async (name: string): Promise<number> => (await lstat(join(releaseDir, name))).size;
    const judged = judgeAppRecord(bytes, {
      file: layout.appRecord,
      tarball: { fileName: layout.tarball, sha256: tarballSha256, byteSize: await size(layout.tarball) },
      runnerd: { fileName: layout.runnerd, sha256: runnerdSha256, byteSize: await size(layout.runnerd) },
      packageVersion,
    });
    // runnerd's own word can only contradict the gate's: a self-declared debug build (buildProfile,
    // a field upstream's runnerd does not print) where the record says release is a mismatch.
    const resolved = values.found('runnerd-resolve')?.artifact.buildMetadata;
    const declared = resolved === undefined ? null : declaredBuildProfile(resolved);
    const issues = [...judged.issues];
    if (declared !== null && declared !== judged.runnerdBuildProfile) {
      issues.push({
        code: 'runnerd_build_profile_mismatch',
        message: `${layout.runnerd} declares itself a ${JSON.stringify(declared)} build, where ${layout.appRecord} states ${JSON.stringify(judged.runnerdBuildProfile ?? 'no build profile')}`,
        component: 'runnerd',
        file: layout.runnerd,
        path: '/buildProfile',
        expected: judged.runnerdBuildProfile ?? 'release',
        received: declared,
      });
    }
    return judge(
      issues,
      `${layout.appRecord} passed, names ${layout.tarball} and ${layout.runnerd} with the digests and sizes Evals computed, and states a release runnerd`,
      `${layout.appRecord} does not agree with the release`,
      { facts: { runnerdBuildProfile: judged.runnerdBuildProfile } },
    );
  },
};
