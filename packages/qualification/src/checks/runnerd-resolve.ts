// Check runnerd-resolve: runnerd resolves by path and its SHA256SUMS digest and states the PRP range
// the package's build metadata states (same source). That it is a release build is not runnerd's
// to say (upstream's prints no build profile): app-record proves it from the gate's own record.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { isContractError } from '@paperclip-evals/contract';
import { resolveRunnerdArtifact } from '@paperclip-evals/node';

import { verifiedDigest } from '../release-dir.js';
import { fail, judge, lacking } from './context.js';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

export const runnerdResolve: QualificationCheckDefinition = {
  id: 'runnerd-resolve',
  needs: ['release-layout', 'sha256sums'],
  uses: ['build-metadata'],
  unavailable: 'no verified runnerd',
  run: async ({ releaseDir, options }, values) => {
    const runnerd = values.need('release-layout').runnerd;
    if (runnerd === null)
      return lacking([{ need: 'release-layout', why: 'there is no runnerd for this host' }]);
    const sums = values.need('sha256sums');
    const path = join(releaseDir, runnerd);
    const found = {
      runnerdSha256: sums.computed[runnerd] ?? null,
      runnerdByteSize: (await lstat(path)).size,
    };
    // Only a runnerd that matched its SHA256SUMS digest is run; the resolver digests its private
    // copy again against that digest before running it.
    const listed = verifiedDigest(sums, runnerd);
    if ('why' in listed) return lacking([{ need: 'sha256sums', why: listed.why }], found);
    const expectedSha256 = listed.sha256;
    let artifact;
    try {
      artifact = await resolveRunnerdArtifact({
        executablePath: path,
        expectedSha256,
        ...(options.metadataTimeoutMs === undefined ? {} : { metadataTimeoutMs: options.metadataTimeoutMs }),
      });
    } catch (error) {
      if (!isContractError(error)) throw error;
      return fail(
        `${runnerd} did not resolve: ${error.issues.map((issue) => issue.code).join(', ')}`,
        error.issues,
        found,
      );
    }
    const issues: QualificationIssue[] = [];
    // runnerd and the package are built from the same source: they state the same PRP range.
    const theirs = artifact.buildMetadata.prp;
    const ours = values.found('build-metadata')?.prp;
    if (
      ours !== undefined &&
      (theirs.name !== ours.name ||
        theirs.minimumVersion !== ours.minimumVersion ||
        theirs.maximumVersion !== ours.maximumVersion)
    ) {
      issues.push({
        code: 'runnerd_prp_range_mismatch',
        message: `${runnerd} speaks ${theirs.name} ${theirs.minimumVersion}..${theirs.maximumVersion}, the package's build metadata ${ours.name} ${ours.minimumVersion}..${ours.maximumVersion}`,
        component: 'prp',
        file: runnerd,
        path: '/prp',
        expected: {
          name: ours.name,
          minimumVersion: ours.minimumVersion,
          maximumVersion: ours.maximumVersion,
        },
        received: {
          name: theirs.name,
          minimumVersion: theirs.minimumVersion,
          maximumVersion: theirs.maximumVersion,
        },
      });
    }
    return judge(
      issues,
      `${runnerd} verified (${artifact.sha256}), built from ${artifact.buildMetadata.packageVersion}, PRP ${theirs.minimumVersion}..${theirs.maximumVersion} as the package states`,
      `${runnerd} does not speak the package's PRP range`,
      {
        value: { file: runnerd, artifact },
        facts: { runnerdSha256: artifact.sha256, runnerdByteSize: artifact.byteSize, artifact },
      },
    );
  },
};
