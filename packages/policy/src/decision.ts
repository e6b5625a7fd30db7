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

/** Strings of decisions come from bundles (ids, reasons): each is quoted once, up to this many. */
const QUOTED_CACHE_ENTRIES = 4096;
const quoted = new Map<string, string>();

function quote(text: string): string {
  let json = quoted.get(text);
  if (json === undefined) {
    if (quoted.size >= QUOTED_CACHE_ENTRIES) quoted.clear();
    json = JSON.stringify(text);
    quoted.set(text, json);
  }
  return json;
}

/** The Decision as compact JSON, byte for byte what JSON.stringify writes (same member order). */
export function decisionToJSON(decision: Decision): string {
  let matched = '';
  for (const entry of decision.matched)
    matched += `${matched === '' ? '' : ','}{"rule_id":${quote(entry.rule_id)},"verdict":"${entry.verdict}","source":"${entry.source}"}`;
  const ruleId = decision.rule_id === null ? 'null' : quote(decision.rule_id);
  return `{"verdict":"${decision.verdict}","rule_id":${ruleId},"reason":${quote(decision.reason)},"matched":[${matched}],"state":"${decision.state}"}`;
}
