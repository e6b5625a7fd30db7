// What a published attempt page shows of its case, from the campaign record alone (issue 19): an
// evals-campaign/v1 record carries each case's prompt and description (`caseDefinitions`, as the
// environment gave them to `evals run`), so a private site's attempt page shows the prompt without
// `--env` and publishing with or without it gives the same bytes. A record written before records
// carried them, a case the record does not list, or a run without a record (ingested, not run):
// no prompt, and the page says why. The public projection never shows a prompt (public-projection.ts).
import type { ReplayCase } from '../attempt-replay.js';

interface RecordedCase {
  readonly prompt: string;
  readonly description: string | null;
}

const SEE_ENV = "`evals report --attempt ID --env FILE` shows the environment's";

/** The case of `caseId` as `record` (the ledger's current campaign record, or null) carries it. */
export function recordCases(
  record: Readonly<Record<string, unknown>> | null,
): (caseId: string) => ReplayCase {
  const missing = (why: string): ReplayCase => ({ description: null, prompt: null, promptMissing: why });
  if (record === null) {
    const none = missing(
      `no campaign record holds this run (it was ingested, not run by \`evals run\`): ${SEE_ENV}`,
    );
    return () => none;
  }
  const recorded = Array.isArray(record.caseDefinitions) ? casesOf(record.caseDefinitions) : null;
  if (recorded === null) {
    const none = missing(
      `the campaign record does not carry the case's prompt (it was written before records carried caseDefinitions): ${SEE_ENV}`,
    );
    return () => none;
  }
  return (caseId) => {
    const entry = recorded.get(caseId);
    return entry === undefined
      ? missing(`the campaign record does not carry case ${JSON.stringify(caseId)}'s prompt: ${SEE_ENV}`)
      : { description: entry.description, prompt: entry.prompt, promptMissing: null };
  };
}

/** The record's caseDefinitions by case id; an entry not of the schema's shape is left out. */
function casesOf(entries: readonly unknown[]): Map<string, RecordedCase> {
  const cases = new Map<string, RecordedCase>();
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { id, prompt, description } = entry as Record<string, unknown>;
    if (typeof id !== 'string' || typeof prompt !== 'string') continue;
    if (description !== null && typeof description !== 'string') continue;
    if (!cases.has(id)) cases.set(id, { prompt, description });
  }
  return cases;
}
