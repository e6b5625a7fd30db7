// Check tarball-extract: a private copy of the tarball is digested, scanned and extracted; the
// bytes extracted are the bytes hashed.
import { constants as fsConstants } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFile } from '@paperclip-evals/node';

import { DEFAULT_TARBALL_LIMITS, extractTarball } from '../tarball.js';
import { judge, lacking } from './context.js';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

export const tarballExtract: QualificationCheckDefinition = {
  id: 'tarball-extract',
  needs: ['release-layout', 'sha256sums'],
  run: async ({ releaseDir, workDir, options }, values) => {
    const tarball = values.need('release-layout').tarball;
    if (tarball === null)
      return lacking([{ need: 'release-layout', why: 'there is no single *.tgz to extract' }]);
    const copy = join(workDir, 'package.tgz');
    await copyFile(join(releaseDir, tarball), copy, fsConstants.COPYFILE_EXCL);
    const sha256 = (await digestFile(copy)).digest;
    const issues: QualificationIssue[] = [];
    const listed = values.need('sha256sums').computed[tarball];
    if (listed !== undefined && listed !== sha256) {
      issues.push({
        code: 'tarball_changed',
        message: `${tarball} changed while it was being qualified`,
        file: tarball,
        expected: listed,
        received: sha256,
      });
    }
    const destination = join(workDir, 'extract');
    await mkdir(destination, { mode: 0o700 });
    const extraction = await extractTarball(
      copy,
      destination,
      options.tarballLimits ?? DEFAULT_TARBALL_LIMITS,
    );
    issues.push(...extraction.issues);
    return judge(
      issues,
      `${extraction.entries.length} entries (${extraction.totalBytes} bytes) under package/ extracted into a private directory`,
      'the tarball is not safe to extract',
      {
        value: { sha256, packageDir: issues.length === 0 ? extraction.packageDir : null },
        facts: { tarballSha256: sha256 },
      },
    );
  },
};
