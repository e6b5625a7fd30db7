// Check package-manifest: package/package.json is a strict JSON object naming the runner package,
// its version and the three entry points, with no local dependency specs.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonText } from '@paperclip-evals/contract';

import { RUNNER_PACKAGE_NAME, manifestIssues } from '../judgements.js';
import { fail, judge, lacking } from './context.js';

import type { PackageManifest } from '../judgements.js';
import type { QualificationCheckDefinition } from './context.js';

const MAX_MANIFEST_BYTES = 1024 * 1024;
const UNREADABLE = { value: { manifest: null, version: null } } as const;

export const packageManifest: QualificationCheckDefinition = {
  id: 'package-manifest',
  needs: ['tarball-extract'],
  run: async (_input, values) => {
    const packageDir = values.need('tarball-extract').packageDir;
    if (packageDir === null) return lacking([{ need: 'tarball-extract', why: 'nothing safe was extracted' }]);
    const path = join(packageDir, 'package.json');
    let manifest: unknown;
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) throw new Error('package/package.json is not a regular file');
      const text = readJsonText(await readFile(path), { maxBytes: MAX_MANIFEST_BYTES });
      if (!text.ok) return { ...fail('package/package.json is not strict JSON', text.issues), ...UNREADABLE };
      manifest = text.value;
    } catch (error) {
      return {
        ...fail('the tarball has no readable package/package.json', [
          {
            code: 'package_json_missing',
            message: `package/package.json cannot be read: ${error instanceof Error ? error.message : String(error)}`,
            entry: 'package/package.json',
          },
        ]),
        ...UNREADABLE,
      };
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
      return {
        ...fail('package/package.json is not a JSON object', [
          {
            code: 'package_json_not_object',
            message: 'package/package.json is not a JSON object',
            entry: 'package/package.json',
          },
        ]),
        ...UNREADABLE,
      };
    }
    const parsed = manifest as PackageManifest;
    const name = typeof parsed.name === 'string' ? parsed.name : null;
    const version = typeof parsed.version === 'string' ? parsed.version : null;
    return judge(
      manifestIssues(parsed),
      `${RUNNER_PACKAGE_NAME} ${String(parsed.version)} declares ., ./evals and ./testing`,
      'package/package.json is not what a consumer can rely on',
      { value: { manifest: parsed, version }, facts: { packageName: name, packageVersion: version } },
    );
  },
};
