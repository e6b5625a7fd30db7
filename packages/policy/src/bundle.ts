// Loading a policy bundle in the protocol's two stages. Stage one checks the envelope against
// schemas/policy/bundle-v1.schema.json; a failure loads nothing (OL-1241). Stage two takes each
// artifact on its own: one that fails is skipped with a reason ({kind, id, reason}) and the rest
// load. The loaded bundle carries its RFC 8785 digest and the register layout its Tier 2 artifacts need.
import { canonicalDigest, schemaErrors } from '@paperclip-evals/contract';

import { ARTIFACT_KINDS, compileArtifact } from './artifacts.js';
import { arrayElements, findMembers, memberSpansFor, numberTokens } from './framing.js';
import { isBadPattern } from './predicate.js';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { ArtifactBodies, ArtifactKind, CompiledArtifact, RegisterAllocator } from './artifacts.js';
import type { Verdict } from './decision.js';
import type { StateLayout } from './state.js';

export const POLICY_BUNDLE_V1 = 'paperclip-evals/policy-bundle/v1';
export const BUNDLE_SCHEMA_ID = 'https://paperclip-evals.dev/schemas/policy/bundle/v1.json';
/** The artifact format versions this engine loads: below the floor is below_floor, above is unknown_kind. */
export const ARTIFACT_VERSION_FLOOR = 1;
export const ARTIFACT_VERSION_CURRENT = 1;

/** Current skip reasons; consumers must keep unfamiliar ones too. */
export type SkipReason =
  'unknown_kind' | 'body_parse_error' | 'bad_pattern' | 'below_floor' | 'float_present';

export interface SkippedArtifact {
  readonly kind: string;
  readonly id: string;
  readonly reason: SkipReason;
}

export interface LoadedBundle {
  readonly digest: Sha256Digest;
  readonly defaultVerdict: Verdict;
  readonly artifacts: readonly CompiledArtifact[];
  readonly layout: StateLayout;
  readonly skipped: readonly SkippedArtifact[];
}

export type BundleLoad =
  { readonly ok: true; readonly bundle: LoadedBundle } | { readonly ok: false; readonly message: string };

/**
 * Loads a bundle document. Never throws: anything unexpected while loading is a rejection. `text`
 * is the document's JSON text when there is one (a header frame's bundle member, a file): only the
 * text tells `60000.0` or `6e4` (float_present) from `60000`, which JSON.parse reads alike.
 */
export function loadBundle(document: unknown, text?: string): BundleLoad {
  try {
    const envelopeErrors = schemaErrors(BUNDLE_SCHEMA_ID, document);
    if (envelopeErrors.length > 0) {
      const details = envelopeErrors.map(
        (error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`,
      );
      return { ok: false, message: `bundle envelope rejected: ${details.join('; ')}` };
    }
    const envelope = document as { artifacts: unknown[]; default_verdict?: Verdict };
    const digest = canonicalDigest(document);
    const allocator = new Allocator();
    const artifacts: CompiledArtifact[] = [];
    const skipped: SkippedArtifact[] = [];
    const artifactTokens = text === undefined ? undefined : numberTokensPerArtifact(text);
    for (const [index, artifact] of envelope.artifacts.entries()) {
      const loaded = loadArtifact(artifact, allocator, artifactTokens?.[index]);
      if ('reason' in loaded) skipped.push(loaded);
      else artifacts.push(loaded);
    }
    return {
      ok: true,
      bundle: {
        digest,
        defaultVerdict: envelope.default_verdict ?? 'allow',
        artifacts,
        layout: allocator.layout,
        skipped,
      },
    };
  } catch (error) {
    return {
      ok: false,
      message: `bundle could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** `tokens`: the number tokens of the artifact's JSON text, when the bundle's text is known. */
function loadArtifact(
  artifact: unknown,
  allocator: Allocator,
  tokens: readonly string[] | undefined,
): CompiledArtifact | SkippedArtifact {
  const fields =
    typeof artifact === 'object' && artifact !== null && !Array.isArray(artifact)
      ? (artifact as Record<string, unknown>)
      : {};
  const kind = typeof fields.kind === 'string' ? fields.kind : '';
  const id = typeof fields.id === 'string' ? fields.id : '';
  const skip = (reason: SkipReason): SkippedArtifact => ({ kind, id, reason });

  if (!(ARTIFACT_KINDS as readonly string[]).includes(kind)) return skip('unknown_kind');
  if (tokens === undefined ? someNumber(artifact, (n) => !Number.isInteger(n)) : tokens.some(isNotInteger))
    return skip('float_present');
  // An integer literal past 2^53 has no exact double: the body cannot be read as written.
  if (someNumber(artifact, (n) => !Number.isSafeInteger(n))) return skip('body_parse_error');
  if (typeof fields.version === 'number') {
    if (fields.version < ARTIFACT_VERSION_FLOOR) return skip('below_floor');
    if (fields.version > ARTIFACT_VERSION_CURRENT) return skip('unknown_kind');
  }
  const knownKind = kind as ArtifactKind;
  const trial = allocator.fork();
  try {
    if (
      schemaErrors(`${BUNDLE_SCHEMA_ID}#/$defs/artifact`, artifact).length > 0 ||
      schemaErrors(`${BUNDLE_SCHEMA_ID}#/$defs/${knownKind}`, fields.body).length > 0
    )
      return skip('body_parse_error');
    const compiled = compileArtifact(knownKind, id, fields.body as ArtifactBodies[typeof knownKind], trial);
    allocator.commit(trial);
    return compiled;
  } catch (error) {
    // A body too deep to validate or compile (stack exhausted) is unreadable too; only this artifact is lost.
    return skip(isBadPattern(error) ? 'bad_pattern' : 'body_parse_error');
  }
}

function someNumber(value: unknown, test: (number: number) => boolean): boolean {
  if (typeof value === 'number') return test(value);
  if (Array.isArray(value)) return value.some((item) => someNumber(item, test));
  if (typeof value === 'object' && value !== null)
    return Object.values(value).some((item) => someNumber(item, test));
  return false;
}

/** A number token with a fraction or an exponent (bodies are integer-only: float_present). */
function isNotInteger(token: string): boolean {
  return token.includes('.') || token.includes('e') || token.includes('E');
}

/** The number tokens of each artifact in the bundle's text (the text already known to be valid JSON). */
function numberTokensPerArtifact(text: string): string[][] | undefined {
  const spans = memberSpansFor(['artifacts']);
  if (!findMembers(text, 0, text.length, ['artifacts'], spans)) return undefined;
  const start = spans[0] ?? -1;
  if (start < 0) return undefined;
  return arrayElements(text, { start, end: spans[1] ?? start }).map((span) => numberTokens(text, span));
}

/** Hands out register offsets in bundle order; a skipped artifact's trial allocation is dropped. */
class Allocator implements RegisterAllocator {
  constructor(
    private sizes: { c: number; f: number; t: number; a: number; run: boolean } = {
      c: 0,
      f: 0,
      t: 0,
      a: 0,
      run: false,
    },
  ) {}

  get layout(): StateLayout {
    return { ...this.sizes };
  }

  take(file: 'c' | 'f' | 't' | 'a', count: number): number {
    const offset = this.sizes[file];
    this.sizes[file] += count;
    return offset;
  }

  useRun(): void {
    this.sizes.run = true;
  }

  fork(): Allocator {
    return new Allocator({ ...this.sizes });
  }

  commit(trial: Allocator): void {
    this.sizes = { ...trial.sizes };
  }
}
