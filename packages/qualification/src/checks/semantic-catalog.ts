// Check semantic-catalog: Evals recomputes the digest of the package's CAPABILITY_SEMANTIC_TOOL_CATALOG
// over its RFC 8785 canonical form; canonicalCapabilitySemanticCatalog() must be exactly that text,
// and the digest must equal both PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 and the build metadata's
// semanticCatalog.sha256. The catalog's version is the build metadata's (upstream's catalog is a
// bare list of descriptors).
import { canonicalize, sha256Digest } from '@paperclip-evals/contract';

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
    const { semanticCatalog: catalog, semanticCatalogText: text, semanticCatalogSha256: declared } = evals;
    const expected = values.need('build-metadata').semanticCatalog;
    if (!catalog.ok) {
      return fail('CAPABILITY_SEMANTIC_TOOL_CATALOG cannot be read', [
        {
          code: 'catalog_unavailable',
          message: `${catalog.error.name}: ${catalog.error.message}`,
          received: catalog.error,
        },
      ]);
    }
    const issues: QualificationIssue[] = [];
    let canonical: string | null = null;
    try {
      canonical = canonicalize(catalog.value);
    } catch (error) {
      issues.push({
        code: 'catalog_not_canonicalizable',
        message: `CAPABILITY_SEMANTIC_TOOL_CATALOG has no RFC 8785 canonical form: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const digest: Sha256Digest | null = canonical === null ? null : sha256Digest(canonical);
    if (canonical !== null && (!text.ok || text.value !== canonical)) {
      issues.push({
        code: 'catalog_text_not_canonical',
        message:
          "canonicalCapabilitySemanticCatalog() is not the RFC 8785 canonical form of CAPABILITY_SEMANTIC_TOOL_CATALOG, so its digest would not be the catalog's",
        expected: digest,
        received: !text.ok
          ? text.error
          : typeof text.value === 'string'
            ? sha256Digest(text.value)
            : (text.value ?? null),
      });
    }
    if (digest !== null && digest !== expected.sha256) {
      issues.push({
        code: 'catalog_digest_mismatch',
        message:
          "Evals' canonical digest of CAPABILITY_SEMANTIC_TOOL_CATALOG differs from the build metadata's",
        path: '/semanticCatalog/sha256',
        expected: expected.sha256,
        received: digest,
      });
    }
    if (!declared.ok || declared.value !== digest) {
      issues.push({
        code: 'catalog_declared_digest_mismatch',
        message:
          "PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 differs from Evals' canonical digest of CAPABILITY_SEMANTIC_TOOL_CATALOG",
        expected: digest,
        received: declared.ok ? (declared.value ?? null) : declared.error,
      });
    }
    return judge(
      issues,
      `catalog v${expected.version} recomputed: ${String(digest)}`,
      'the semantic catalog does not match its metadata',
      {
        ...(digest === null ? {} : { value: { version: expected.version, sha256: digest } }),
        facts: { digests: { semanticCatalog: digest } },
      },
    );
  },
};
