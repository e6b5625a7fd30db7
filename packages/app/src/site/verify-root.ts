// `evals publish --verify`'s checks of the site's root JSON files (history.json, latest.json,
// latest-green.json), which no manifest lists: their digests cannot be checked, so their content is.
// Each is read with the strict JSON reader and validated against its schema, and the three must
// agree with each other and with the site's campaign folders. Each defect its own code:
//   site_root_invalid       not strict JSON: truncated, garbage after it, a duplicate key, not UTF-8
//   site_root_schema        strict JSON, not of its schema (site-history/v1, site-latest/v1), or a
//                           latest file whose `which` is the other file's
//   site_root_inconsistent  the files disagree: history.json lists a folder the site does not have,
//                           its latest or latest green is no campaign it lists (or not the newest
//                           one, the newest green one), latest.json /
//                           latest-green.json names a folder the site does not have or is not
//                           history.json's latest entry
// A campaign folder history.json does not list is no defect: a publication stopped between two
// campaigns leaves the folders it finished before the root files are written, and that site
// verifies (docs/publishing.md); publishing again lists them.
// What to do is the same for every one: publish into the site again, which rewrites the root files
// from the campaign folders (their campaign.json, checked against the manifest).
import { canonicalize, readJsonText, schemaIssuesOf } from '@paperclip-evals/contract';

import type { Issue } from '@paperclip-evals/contract';
import type { SiteHistory, SiteLatest } from '@paperclip-evals/evalbook';

const SCHEMAS = {
  history: 'https://paperclip-evals.dev/schemas/site-history/v1.json',
  latest: 'https://paperclip-evals.dev/schemas/site-latest/v1.json',
} as const;

/** The root JSON files, each with its schema and (a latest file) the `which` it must say. */
export const ROOT_JSON: ReadonlyMap<
  string,
  { readonly schema: keyof typeof SCHEMAS; readonly which: SiteLatest['which'] | null }
> = new Map([
  ['history.json', { schema: 'history', which: null }],
  ['latest.json', { schema: 'latest', which: 'latest' }],
  ['latest-green.json', { schema: 'latest', which: 'latest_green' }],
] as const);

const FIX = 'publish into the site again (evals publish --out SITE), which rewrites the root files';

const rootIssue = (
  code: string,
  path: string,
  message: string,
  expected: string,
  received: string,
): Issue => ({
  code,
  message: `${message}; ${FIX}`,
  path,
  expected,
  received,
});

const shown = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** What one root JSON file holds once read: its value when it is strict JSON of its schema. */
export interface RootRead {
  readonly issues: Issue[];
  readonly value: SiteHistory | SiteLatest | null;
}

/** Reads one root JSON file's bytes: strict JSON, its schema, its `which`. */
export function readRootJson(name: string, bytes: Uint8Array): RootRead {
  const spec = ROOT_JSON.get(name);
  if (spec === undefined) return { issues: [], value: null };
  const parsed = readJsonText(bytes);
  if (!parsed.ok) {
    const [first] = parsed.issues;
    const at = first?.path === undefined || first.path === '' ? '' : ` at ${first.path}`;
    return {
      issues: [
        rootIssue(
          'site_root_invalid',
          name,
          `${name} is not strict JSON (${bytes.byteLength} bytes): ${first?.message ?? 'unreadable'}${at} — truncated, or something written after it`,
          'strict JSON (UTF-8, one object, no duplicate keys, nothing after it), as evals publish writes it',
          `${first?.code ?? 'json_syntax'}${at}`,
        ),
      ],
      value: null,
    };
  }
  const schemaId = SCHEMAS[spec.schema];
  const issues = schemaIssuesOf(schemaId, parsed.value, () => 'site_root_schema').map((found) =>
    rootIssue(
      'site_root_schema',
      `${name}#${found.path ?? ''}`,
      `${name} is not paperclip-evals/site-${spec.schema}/v1: ${found.message}`,
      shown(found.expected),
      shown(found.received),
    ),
  );
  if (issues.length > 0) return { issues, value: null };
  const value = parsed.value as SiteHistory | SiteLatest;
  if (spec.which !== null && 'which' in value && value.which !== spec.which)
    return {
      issues: [
        rootIssue(
          'site_root_schema',
          `${name}#/which`,
          `${name} says which: ${value.which}, the other latest file's`,
          spec.which,
          value.which,
        ),
      ],
      value: null,
    };
  return { issues: [], value };
}

/**
 * The root files against each other and the site's campaign folders (`folders`: `campaigns/<name>`
 * each). Only files that read as their schema are compared (a file that does not is its own issue).
 */
export function rootConsistencyIssues(
  values: ReadonlyMap<string, SiteHistory | SiteLatest>,
  folders: ReadonlySet<string>,
): Issue[] {
  const issues: Issue[] = [];
  const inconsistent = (path: string, message: string, expected: string, received: string): void => {
    issues.push(rootIssue('site_root_inconsistent', path, message, expected, received));
  };
  const history = values.get('history.json') as SiteHistory | undefined;
  if (history !== undefined) {
    const entries = [...history.campaigns, ...history.rerenders];
    for (const entry of entries)
      if (!folders.has(entry.folder))
        inconsistent(
          'history.json',
          `history.json lists campaign ${entry.campaignId} in ${entry.folder}, which the site does not have`,
          'a campaign folder of the site for every campaign history.json lists',
          `no ${entry.folder}`,
        );
    // What they must be (as publish's buildHistory makes them): the newest campaign listed (newest
    // first), and the newest green one.
    const ids = new Set(history.campaigns.map((entry) => entry.campaignId));
    const newest = {
      latest: history.campaigns[0]?.campaignId ?? null,
      latestGreen: history.campaigns.find((entry) => entry.green)?.campaignId ?? null,
    };
    for (const [field, id] of [
      ['latest', history.latest],
      ['latestGreen', history.latestGreen],
    ] as const)
      if (id !== null && !ids.has(id))
        inconsistent(
          `history.json#/${field}`,
          `history.json's ${field} is ${id}, a campaign it does not list`,
          'a campaign history.json lists (or null)',
          id,
        );
      else if (id !== newest[field])
        inconsistent(
          `history.json#/${field}`,
          `history.json's ${field} is ${id ?? 'null'}, but the newest ${field === 'latest' ? '' : 'green '}campaign it lists is ${newest[field] ?? 'none'}`,
          newest[field] ?? 'null',
          id ?? 'null',
        );
  }
  for (const name of ['latest.json', 'latest-green.json']) {
    const latest = values.get(name) as SiteLatest | undefined;
    if (latest === undefined) continue;
    const campaign = latest.campaign;
    if (campaign !== null && !folders.has(campaign.folder))
      inconsistent(
        `${name}#/campaign/folder`,
        `${name} names campaign ${campaign.campaignId} in ${campaign.folder}, which the site does not have`,
        'a campaign folder of the site',
        `no ${campaign.folder}`,
      );
    if (history === undefined) continue;
    const id = latest.which === 'latest' ? history.latest : history.latestGreen;
    const field = latest.which === 'latest' ? 'latest' : 'latestGreen';
    const entry = history.campaigns.find((listed) => listed.campaignId === id) ?? null;
    if ((campaign?.campaignId ?? null) !== id)
      inconsistent(
        `${name}#/campaign`,
        `${name} names ${campaign?.campaignId ?? 'no campaign'}, but history.json's ${field} is ${id ?? 'none'}`,
        `history.json's ${field}: ${id ?? 'null'}`,
        campaign?.campaignId ?? 'null',
      );
    else if (campaign !== null && entry !== null && canonicalize(campaign) !== canonicalize(entry))
      inconsistent(
        `${name}#/campaign`,
        `${name}'s entry for ${campaign.campaignId} is not history.json's (a field differs)`,
        `history.json's entry for ${campaign.campaignId}`,
        'another entry',
      );
  }
  return issues;
}
