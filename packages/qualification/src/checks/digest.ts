// The canonical digest of a document read from the package, or null when it has no canonical form.
import { canonicalDigest } from '@paperclip-evals/contract';

import type { Sha256Digest } from '@paperclip-evals/contract';

export function canonicalDigestOrNull(value: unknown): Sha256Digest | null {
  try {
    return canonicalDigest(value);
  } catch {
    return null;
  }
}
