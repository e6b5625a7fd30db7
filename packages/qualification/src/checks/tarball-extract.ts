// Check tarball-extract: only a tarball whose SHA256SUMS digest matched is used (else skipped "needs
// sha256sums"): a private copy is digested and must still be the bytes SHA256SUMS lists (else
// tarball_changed, and nothing is extracted), then scanned and extracted; the bytes extracted are
// the bytes hashed.
import { constants as fsConstants } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFile } from '@paperclip-evals/node';

import { verifiedDigest } from '../release-dir.js';
import { DEFAULT_TARBALL_LIMITS, extractTarball } from '../tarball.js';
import { fail, judge, lacking } from './context.js';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

export const tarballExtract: QualificationCheckDefinition = {
  id: 'tarball-extract',
  needs: ['release-layout', 'sha256sums'],
  run: async ({ releaseDir, workDir, options }, values) => {
    const tarball = values.need('release-layout').tarball;
    if (tarball === null)
      return lacking([{ need: 'release-layout', why: 'there is no single *.tgz to extract' }]);
    const listed = verifiedDigest(values.need('sha256sums'), tarball);
    if ('why' in listed) return lacking([{ need: 'sha256sums', why: listed.why }]);
    const copy = join(workDir, 'package.tgz');
    await copyFile(join(releaseDir, tarball), copy, fsConstants.COPYFILE_EXCL);
    const sha256 = (await digestFile(copy)).digest;
    if (sha256 !== listed.sha256) {
      const changed: QualificationIssue = {
        code: 'tarball_changed',
        message: `${tarball} changed while it was being qualified: its copy is not the bytes SHA256SUMS lists, so nothing of it is extracted`,
        file: tarball,
        expected: listed.sha256,
        received: sha256,
      };
      return fail(`${tarball} changed while it was being qualified`, [changed], { tarballSha256: sha256 });
    }
    const issues: QualificationIssue[] = [];
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
