// Check semantic-catalog: Evals recomputes the catalog's RFC 8785 digest; it matches the build
// metadata and SEMANTIC_CATALOG_SHA256, and the versions agree.
import { canonicalDigest } from '@paperclip-evals/contract';

import { fail, judge, lacking } from './context.js';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { QualificationIssue } from '../record.js';
import type { QualificationCheckDefinition } from './context.js';

export const semanticCatalog: QualificationCheckDefinition = {
  id: 'semantic-catalog',
  needs: ['consumer-probe', 'entry-points', 'build-metadata'],
  unavailable: 'no catalog digest',
  run: (_input, values) => {
    const evals = values.need('entry-points').evals;
    if (evals === null) return lacking([{ need: 'entry-points', why: './evals did not load' }]);
    const catalog = evals.semanticCatalog;
    const declared = evals.semanticCatalogSha256;
    const expected = values.need('build-metadata').semanticCatalog;
    if (!catalog.ok) {
      return fail('SEMANTIC_CATALOG cannot be read', [
        {
          code: 'catalog_unavailable',
          message: `${catalog.error.name}: ${catalog.error.message}`,
          received: catalog.error,
        },
      ]);
    }
    const issues: QualificationIssue[] = [];
    let digest: Sha256Digest | null = null;
    try {
      digest = canonicalDigest(catalog.value);
    } catch (error) {
      issues.push({
        code: 'catalog_not_canonicalizable',
        message: `SEMANTIC_CATALOG has no RFC 8785 canonical form: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const version = (catalog.value as { version?: unknown } | null)?.version;
    if (typeof version !== 'number' || version !== expected.version) {
      issues.push({
        code: 'catalog_version_mismatch',
        message: `SEMANTIC_CATALOG.version is ${JSON.stringify(version)}, the build metadata says ${expected.version}`,
        path: '/semanticCatalog/version',
        expected: expected.version,
        received: version ?? 'missing',
      });
    }
    if (digest !== null && digest !== expected.sha256) {
      issues.push({
        code: 'catalog_digest_mismatch',
        message: "Evals' canonical digest of SEMANTIC_CATALOG differs from the build metadata's",
        path: '/semanticCatalog/sha256',
        expected: expected.sha256,
        received: digest,
      });
    }
    if (!declared.ok || declared.value !== digest) {
      issues.push({
        code: 'catalog_declared_digest_mismatch',
        message: "SEMANTIC_CATALOG_SHA256 differs from Evals' canonical digest of SEMANTIC_CATALOG",
        expected: digest,
        received: declared.ok ? declared.value : declared.error,
      });
    }
    return judge(
      issues,
      `catalog v${String(version)} recomputed: ${String(digest)}`,
      'the semantic catalog does not match its metadata',
      {
        ...(digest !== null && typeof version === 'number' ? { value: { version, sha256: digest } } : {}),
        facts: { digests: { semanticCatalog: digest } },
      },
    );
  },
};
