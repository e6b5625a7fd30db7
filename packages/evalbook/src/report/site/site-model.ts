// The published site's model (issue 19), pure: what a campaign folder's campaign.json says about its
// campaign (SiteCampaign), and the root history built from every campaign.json of a site
// (buildHistory): campaigns newest first, comparable groups (the same lanes — provider, model,
// driver — and the same suite fingerprint: different suites never share a baseline), each group's
// pass-rate and cost timeline over its complete campaigns, regressions and recoveries of each
// campaign against the previous comparable complete one, latest and latest green. Partial campaigns
// and runs without a campaign record (completeness unknown) are listed but are never trend points or
// baselines, nor latest green; a re-render (zero provider calls, upstream's `<id>-report-<n>`) is
// listed apart and never replaces latest. No clock, no I/O: the same campaigns, the same history.
import { canonicalDigest } from '@paperclip-evals/contract';

export const SITE_CAMPAIGN_V1 = 'paperclip-evals/site-campaign/v1';
export const SITE_HISTORY_V1 = 'paperclip-evals/site-history/v1';
export const SITE_LATEST_V1 = 'paperclip-evals/site-latest/v1';
export const SITE_MANIFEST_V1 = 'paperclip-evals/site-bundle-manifest/v1';

/** complete · partial (the record says why) · unknown (a run ingested without a campaign record). */
export type SiteCompleteness = 'complete' | 'partial' | 'unknown';

/** campaign: ran attempts · rerender: a report refresh that called no provider · run: no record. */
export type SiteKind = 'campaign' | 'rerender' | 'run';

export interface SiteLane {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly driver: string | null;
}

/** One case × config of a campaign: solved of counted attempts (the report's denominator). */
export interface SiteCell {
  readonly caseId: string;
  readonly configId: string;
  readonly solved: number;
  readonly counted: number;
}

/** Cost kept as the report keeps it: provider-reported and estimated apart, never added; coverage. */
export interface SiteCost {
  readonly providerReportedNanodollars: number;
  readonly providerReportedAttempts: number;
  readonly estimatedNanodollars: number;
  readonly estimatedAttempts: number;
  readonly unpricedAttempts: number;
}

/** campaign.json of a campaign folder. */
export interface SiteCampaign {
  readonly schema: typeof SITE_CAMPAIGN_V1;
  readonly campaignId: string;
  /** The campaign's folder under the site root (`campaigns/<name>`). */
  readonly folder: string;
  readonly kind: SiteKind;
  readonly completeness: SiteCompleteness;
  /** Why partial (the record's reasons); [] when complete or unknown. */
  readonly partialReasons: readonly string[];
  /** For a rerender: the campaign it refreshes (upstream's `<id>-report-<n>`), when named so. */
  readonly refreshOf: string | null;
  /** Whether the folder is the public projection (issue 19's closed allowlist). */
  readonly public: boolean;
  /** The suite fingerprint from the record (null without one). */
  readonly suiteFingerprint: string | null;
  readonly lanes: readonly SiteLane[];
  /** sha256 of the lanes and suite fingerprint: campaigns with the same key compare; null: never. */
  readonly comparableKey: string | null;
  /** When the campaign started (the record's timing, else its first attempt), or null. */
  readonly startedAt: string | null;
  /** Provider calls made (the tries the ledger holds of it; 0 for a rerender), or null when unknown (no record). */
  readonly providerCalls: number | null;
  readonly attempts: number;
  readonly solved: number;
  readonly counted: number;
  /** solved ÷ counted; null when nothing was counted (never 0/0 = 0). */
  readonly passRate: number | null;
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly cost: SiteCost;
  readonly cells: readonly SiteCell[];
  readonly cases: readonly string[];
  readonly configs: readonly string[];
}

/** A case × config that changed against the baseline (majority solved → not, or back). */
export interface SiteChange {
  readonly caseId: string;
  readonly configId: string;
  readonly before: number;
  readonly after: number;
}

export interface SiteHistoryEntry {
  readonly campaignId: string;
  readonly folder: string;
  readonly kind: SiteKind;
  readonly completeness: SiteCompleteness;
  readonly partialReasons: readonly string[];
  readonly refreshOf: string | null;
  readonly startedAt: string | null;
  readonly comparableKey: string | null;
  readonly providerCalls: number | null;
  readonly attempts: number;
  readonly passRate: number | null;
  readonly cost: SiteCost;
  /** The previous comparable complete campaign compared against, or null (none, or not comparable). */
  readonly baseline: string | null;
  readonly regressions: readonly SiteChange[];
  readonly recoveries: readonly SiteChange[];
  /** Complete, not a rerender, and nothing regressed against its baseline. */
  readonly green: boolean;
}

export interface SiteTrendPoint {
  readonly campaignId: string;
  readonly startedAt: string | null;
  readonly passRate: number | null;
  /** The campaign's sum of that kind; null when no attempt had the figure (unknown, never 0). */
  readonly providerReportedNanodollars: number | null;
  readonly estimatedNanodollars: number | null;
}

export interface SiteGroup {
  readonly comparableKey: string;
  readonly suiteFingerprint: string;
  readonly lanes: readonly SiteLane[];
  /** Complete campaigns (not rerenders), oldest first. */
  readonly points: readonly SiteTrendPoint[];
}

/** history.json. */
export interface SiteHistory {
  readonly schema: typeof SITE_HISTORY_V1;
  /** Campaigns and runs, newest first; rerenders are in `rerenders`. */
  readonly campaigns: readonly SiteHistoryEntry[];
  readonly rerenders: readonly SiteHistoryEntry[];
  readonly groups: readonly SiteGroup[];
  readonly latest: string | null;
  readonly latestGreen: string | null;
}

/** latest.json and latest-green.json. */
export interface SiteLatest {
  readonly schema: typeof SITE_LATEST_V1;
  readonly which: 'latest' | 'latest_green';
  /** null: no campaign qualifies yet. */
  readonly campaign: SiteHistoryEntry | null;
}

/** The comparable key of a campaign: its lanes (sorted) and suite fingerprint; null without a suite. */
export function comparableKeyOf(lanes: readonly SiteLane[], suiteFingerprint: string | null): string | null {
  if (suiteFingerprint === null || lanes.length === 0) return null;
  const members = [...lanes]
    .map(({ id, provider, model, driver }) => ({ id, provider, model, driver }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return canonicalDigest({ lanes: members, suiteFingerprint });
}

/** Upstream's report refresh id: `<campaign>-report-<revision>`. */
export function refreshOf(campaignId: string): string | null {
  return /^(.+)-report-[0-9]+$/.exec(campaignId)?.[1] ?? null;
}

const majority = (cell: SiteCell): number | null => (cell.counted === 0 ? null : cell.solved / cell.counted);

function changes(
  baseline: SiteCampaign,
  campaign: SiteCampaign,
): { regressions: SiteChange[]; recoveries: SiteChange[] } {
  const before = new Map(baseline.cells.map((cell) => [JSON.stringify([cell.caseId, cell.configId]), cell]));
  const regressions: SiteChange[] = [];
  const recoveries: SiteChange[] = [];
  for (const cell of campaign.cells) {
    const old = before.get(JSON.stringify([cell.caseId, cell.configId]));
    const after = majority(cell);
    const was = old === undefined ? null : majority(old);
    if (was === null || after === null) continue;
    const change = { caseId: cell.caseId, configId: cell.configId, before: was, after };
    if (was >= 0.5 && after < 0.5) regressions.push(change);
    else if (was < 0.5 && after >= 0.5) recoveries.push(change);
  }
  return { regressions, recoveries };
}

/** Oldest first: by start (unknown last), then id — a total order, so history never depends on input order. */
function chronological(a: SiteCampaign, b: SiteCampaign): number {
  const at = a.startedAt ?? '\uffff';
  const bt = b.startedAt ?? '\uffff';
  if (at !== bt) return at < bt ? -1 : 1;
  return a.campaignId < b.campaignId ? -1 : a.campaignId > b.campaignId ? 1 : 0;
}

/** The history of a site from every campaign.json in it (any order). */
export function buildHistory(campaigns: readonly SiteCampaign[]): SiteHistory {
  const ordered = [...campaigns].sort(chronological);
  const lastComplete = new Map<string, SiteCampaign>();
  const groups = new Map<string, { group: Omit<SiteGroup, 'points'>; points: SiteTrendPoint[] }>();
  const entries: SiteHistoryEntry[] = [];
  for (const campaign of ordered) {
    const trendable =
      campaign.kind === 'campaign' && campaign.completeness === 'complete' && campaign.comparableKey !== null;
    const baseline =
      campaign.kind === 'rerender' || campaign.comparableKey === null
        ? undefined
        : lastComplete.get(campaign.comparableKey);
    const { regressions, recoveries } =
      baseline === undefined ? { regressions: [], recoveries: [] } : changes(baseline, campaign);
    entries.push({
      campaignId: campaign.campaignId,
      folder: campaign.folder,
      kind: campaign.kind,
      completeness: campaign.completeness,
      partialReasons: campaign.partialReasons,
      refreshOf: campaign.refreshOf,
      startedAt: campaign.startedAt,
      comparableKey: campaign.comparableKey,
      providerCalls: campaign.providerCalls,
      attempts: campaign.attempts,
      passRate: campaign.passRate,
      cost: campaign.cost,
      baseline: baseline?.campaignId ?? null,
      regressions,
      recoveries,
      green: trendable && regressions.length === 0,
    });
    if (trendable && campaign.suiteFingerprint !== null) {
      lastComplete.set(campaign.comparableKey, campaign);
      let group = groups.get(campaign.comparableKey);
      if (group === undefined)
        groups.set(
          campaign.comparableKey,
          (group = {
            group: {
              comparableKey: campaign.comparableKey,
              suiteFingerprint: campaign.suiteFingerprint,
              lanes: campaign.lanes,
            },
            points: [],
          }),
        );
      group.points.push({
        campaignId: campaign.campaignId,
        startedAt: campaign.startedAt,
        passRate: campaign.passRate,
        providerReportedNanodollars:
          campaign.cost.providerReportedAttempts === 0 ? null : campaign.cost.providerReportedNanodollars,
        estimatedNanodollars:
          campaign.cost.estimatedAttempts === 0 ? null : campaign.cost.estimatedNanodollars,
      });
    }
  }
  const newestFirst = entries.reverse();
  const listed = newestFirst.filter((entry) => entry.kind !== 'rerender');
  return {
    schema: SITE_HISTORY_V1,
    campaigns: listed,
    rerenders: newestFirst.filter((entry) => entry.kind === 'rerender'),
    groups: [...groups.values()].map(({ group, points }) => ({ ...group, points })),
    latest: listed[0]?.campaignId ?? null,
    latestGreen: listed.find((entry) => entry.green)?.campaignId ?? null,
  };
}

/** latest.json or latest-green.json of a history. */
export function latestOf(history: SiteHistory, which: SiteLatest['which']): SiteLatest {
  const id = which === 'latest' ? history.latest : history.latestGreen;
  return {
    schema: SITE_LATEST_V1,
    which,
    campaign: history.campaigns.find((entry) => entry.campaignId === id) ?? null,
  };
}
