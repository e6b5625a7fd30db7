// Check app-record: the App's clean-consumer-conformance record passed, names the tarball and
// runnerd with the digests and sizes Evals computed, and states a release runnerd (how "never a
// debug binary" is proven; see ../app-record.ts).
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';

import { readRegularFile } from '@paperclip-evals/node';

import { judgeAppRecord } from '../app-record.js';
import { judge, lacking } from './context.js';

import type { QualificationCheckId } from '../record.js';
import type { Unmet } from './runner.js';
import type { QualificationCheckDefinition } from './context.js';

export const appRecord: QualificationCheckDefinition = {
  id: 'app-record',
  needs: ['release-layout', 'sha256sums', 'tarball-extract', 'package-manifest'],
  uses: ['runnerd-resolve'],
  run: async ({ releaseDir }, values) => {
    const layout = values.need('release-layout');
    const tarballSha256 = values.need('tarball-extract').sha256;
    const runnerdSha256 =
      layout.runnerd === null
        ? null
        : (values.found('runnerd-resolve')?.artifact.sha256 ??
          values.need('sha256sums').computed[layout.runnerd] ??
          null);
    const packageVersion = values.need('package-manifest').version;
    const unmet: Unmet<QualificationCheckId>[] = [];
    if (layout.appRecord === null) {
      unmet.push({ need: 'release-layout', why: 'an App record that is one strict JSON object' });
    }
    if (layout.runnerd === null || runnerdSha256 === null)
      unmet.push({ need: 'sha256sums', why: 'a runnerd digest' });
    if (packageVersion === null) unmet.push({ need: 'package-manifest', why: 'a package version' });
    if (
      unmet.length > 0 ||
      layout.appRecord === null ||
      layout.tarball === null ||
      layout.runnerd === null ||
      runnerdSha256 === null ||
      packageVersion === null
    ) {
      return lacking(unmet);
    }
    const bytes = await readRegularFile(join(releaseDir, layout.appRecord));
    const size = async (name: string): Promise<number> => (await lstat(join(releaseDir, name))).size;
    const judged = judgeAppRecord(bytes, {
      file: layout.appRecord,
      tarball: { fileName: layout.tarball, sha256: tarballSha256, byteSize: await size(layout.tarball) },
      runnerd: { fileName: layout.runnerd, sha256: runnerdSha256, byteSize: await size(layout.runnerd) },
      packageVersion,
    });
    return judge(
      judged.issues,
      `${layout.appRecord} passed, names ${layout.tarball} and ${layout.runnerd} with the digests and sizes Evals computed, and states a release runnerd`,
      `${layout.appRecord} does not agree with the release`,
      { facts: { runnerdBuildProfile: judged.runnerdBuildProfile } },
    );
  },
};
