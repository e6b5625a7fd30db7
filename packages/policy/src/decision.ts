// The frozen Decision object of a successful response (schemas/policy/decision-v1.schema.json).
export type Verdict = 'allow' | 'deny' | 'ask';

export interface MatchedArtifact {
  readonly rule_id: string;
  readonly verdict: Verdict;
  /** rule: the artifact's own logic; on_evict: its declared behaviour for unavailable state. */
  readonly source: 'rule' | 'on_evict';
}

export interface Decision {
  readonly verdict: Verdict;
  /** The artifact that decided; null when none did and the bundle's default_verdict applies. */
  readonly rule_id: string | null;
  readonly reason: string;
  /** Every artifact that gave a verdict, in bundle order. */
  readonly matched: readonly MatchedArtifact[];
  readonly state: 'available' | 'unavailable';
}

export const DECISION_V1 = 'https://paperclip-evals.dev/schemas/policy/decision/v1.json';

/** deny outranks ask outranks allow; the first artifact wins a tie. */
const STRENGTH: Record<Verdict, number> = { allow: 1, ask: 2, deny: 3 };

export function isStronger(candidate: Verdict, current: Verdict): boolean {
  return STRENGTH[candidate] > STRENGTH[current];
}
