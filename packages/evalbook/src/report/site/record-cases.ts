// What a published attempt page shows of its case, from the campaign record alone (issue 19): an
// evals-campaign/v1 record carries each case's prompt and description (`caseDefinitions`, as the
// environment gave them to `evals run`), so a private site's attempt page shows the prompt without
// `--env` and publishing with or without it gives the same bytes. A record written before records
// carried them, a case the record does not list, or a run without a record (ingested, not run):
// no prompt, and the page says why. The public projection never shows a prompt (public-projection.ts),
// and withholds from its text every stretch of the prompts and descriptions the record carries
// (recordSuiteText, suite-text.ts) — or the whole progress text of a case whose prompt it does not carry.
import { suiteTextRedactor } from './suite-text.js';

import type { ReplayCase } from '../attempt-replay.js';
import type { SuiteTextRedactor } from './suite-text.js';

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

/** A case's public text: redacted of the suite's text, or withheld whole (and why) when that is unknown. */
export type SuiteTextOf = (
  caseId: string,
) =>
  | { readonly redact: SuiteTextRedactor; readonly withheld: null }
  | { readonly redact: null; readonly withheld: string };

/**
 * What a public page may say of an attempt's own text, from `record` alone: with the record's
 * caseDefinitions, one redactor of every case's prompt and description (an agent of one case may
 * quote another's); a case the record does not carry, an older record or no record: the suite's
 * text is unknown, so no text of the attempt can be checked against it, and it is withheld.
 */
export function recordSuiteText(record: Readonly<Record<string, unknown>> | null): SuiteTextOf {
  const withheld = (why: string) => ({ redact: null, withheld: why }) as const;
  if (record === null) {
    const none = withheld(
      'no campaign record holds this run (it was ingested, not run by `evals run`), so the suite’s prompts are unknown and the text cannot be checked for them',
    );
    return () => none;
  }
  const recorded = Array.isArray(record.caseDefinitions) ? casesOf(record.caseDefinitions) : null;
  if (recorded === null) {
    const none = withheld(
      'the campaign record does not carry the suite’s prompts (it was written before records carried caseDefinitions), so the text cannot be checked for them',
    );
    return () => none;
  }
  const redact = suiteTextRedactor(
    [...recorded.values()].flatMap((entry) => [entry.prompt, entry.description ?? '']),
  );
  const known = { redact, withheld: null } as const;
  return (caseId) =>
    recorded.has(caseId)
      ? known
      : withheld(
          `the campaign record does not carry case ${JSON.stringify(caseId)}’s prompt, so the text cannot be checked for it`,
        );
}
