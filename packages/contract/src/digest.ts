// SHA-256 digests in `sha256:<hex>` form: of bytes, of canonical JSON, and of streams (a file's digest
// is @paperclip-evals/node's digestFile).
import { createHash, timingSafeEqual } from 'node:crypto';

import { canonicalize } from './canonical-json.js';

export type Sha256Digest = `sha256:${string}`;

export const SHA256_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

export interface StreamDigest {
  readonly digest: Sha256Digest;
  readonly byteSize: number;
}

/** True for a well-formed digest: `sha256:` and 64 lowercase hex digits. Never throws. */
export function isSha256Digest(value: unknown): value is Sha256Digest {
  return typeof value === 'string' && SHA256_DIGEST_PATTERN.test(value);
}

/** Digest of raw bytes, or of a string's UTF-8 encoding. */
export function sha256Digest(data: Uint8Array | string): Sha256Digest {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Digest of the concatenation of `parts` (bytes, or strings as UTF-8), without joining them first. */
export function sha256DigestOfParts(parts: Iterable<Uint8Array | string>): Sha256Digest {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest('hex')}`;
}

/** Digest of the RFC 8785 canonical form of `value`; throws what `canonicalize` throws. */
export function canonicalDigest(value: unknown): Sha256Digest {
  return sha256Digest(canonicalize(value));
}

/** Digest and size of every byte a stream yields, one chunk in memory at a time. */
export async function digestStream(stream: AsyncIterable<Uint8Array>): Promise<StreamDigest> {
  const hash = createHash('sha256');
  let byteSize = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    byteSize += chunk.byteLength;
  }
  return { digest: `sha256:${hash.digest('hex')}`, byteSize };
}

/**
 * Compares two digests in constant time. False, never a throw, when either is not a well-formed
 * digest (so lengths always match before the comparison).
 */
export function digestsEqual(a: string, b: string): boolean {
  return isSha256Digest(a) && isSha256Digest(b) && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
