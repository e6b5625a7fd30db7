// The pages of a published site that are not the report's grid (issue 19): the site index (campaigns
// newest first, per comparable group a pass-rate and a cost timeline in SVG, regressions and
// recoveries, links), a case page per case, and an attempt page per attempt (public: from the
// allowlisted PublicAttempt; a private site's attempt pages are the attempt replay's, html/attempt-page.ts).
// Plain HTML and SVG, no script: the CSP (SITE_CSP) forbids every script and every network fetch, so
// each page works from file://. Every string from the ledger is escaped (the report's esc).
import { esc, money } from '../html/html-text.js';
import { reportPageAssets } from '../html/page-assets.js';

import type { PublicAttempt } from './public-projection.js';
import type { SiteCampaign, SiteCost, SiteGroup, SiteHistory, SiteHistoryEntry } from './site-model.js';

/** The CSP of every page the site writes itself: no script, no fetch, no frame, no form. */
export const SITE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1f2937;background:#fff}
main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left;vertical-align:top}
.note{color:#4b5563;font-size:.9em}.tag{display:inline-block;padding:0 .4rem;border-radius:.3rem;background:#e5e7eb}
.complete{background:#bbf7d0}.partial{background:#fde68a}.unknown{background:#e5e7eb}.rerender{background:#ddd6fe}
.regression{color:#b91c1c}.recovery{color:#047857}pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:.5rem}
nav a{margin-right:1rem}svg{max-width:100%;height:auto}p,li,figcaption,h1,h2,h3{overflow-wrap:anywhere}
@media (max-width:40rem){main{padding:.75rem}figure{margin:.5rem 0}table{display:block;max-width:100%;overflow-x:auto}}`;

/** A whole page: CSP, charset, our style, no script. `depth` is how many folders below the site root. */
export function sitePage(title: string, body: string, depth: number): string {
  const root = depth === 0 ? './' : '../'.repeat(depth);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(SITE_CSP)}">
<meta name="generator" content="Paperclip Evals (evals publish)">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<nav><a href="${root}index.html">All campaigns</a></nav>
${body}
<footer class="note">Paperclip Evals · a static page: it loads nothing from the network.</footer>
</main>
</body>
</html>
`;
}

const percent = (rate: number | null): string => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);

/** Cost as the report states it: provider-reported and estimated apart; `≥` when not all is priced. */
export function costText(cost: SiteCost, partial: boolean): string {
  const priced = cost.providerReportedAttempts + cost.estimatedAttempts;
  const all = priced + cost.unpricedAttempts;
  const atLeast = partial || cost.unpricedAttempts > 0 ? '≥ ' : '';
  // a kind no attempt reported is none, never $0.00: a sum of no known figure is not a zero cost
  const kind = (nanodollars: number, attempts: number): string =>
    attempts === 0
      ? `none (0 of ${all} attempts)`
      : `${atLeast}${money(nanodollars)} (${attempts} of ${all} attempts)`;
  return `provider-reported ${kind(cost.providerReportedNanodollars, cost.providerReportedAttempts)} · estimated ${kind(cost.estimatedNanodollars, cost.estimatedAttempts)} · ${priced} of ${all} priced`;
}

function statusTag(entry: Pick<SiteHistoryEntry, 'kind' | 'completeness' | 'partialReasons'>): string {
  if (entry.kind === 'rerender') return '<span class="tag rerender">re-render</span>';
  if (entry.completeness === 'complete') return '<span class="tag complete">complete</span>';
  if (entry.completeness === 'partial')
    return `<span class="tag partial">partial (${esc(entry.partialReasons.join(', '))})</span>`;
  return '<span class="tag unknown">completeness unknown (no campaign record)</span>';
}

/**
 * What green means for this campaign, said beside its badge: complete, and no case × config regressed
 * against its baseline — which a first campaign does not have, so its green says nothing of its rate.
 */
function greenText(entry: Pick<SiteHistoryEntry, 'baseline'>): string {
  return entry.baseline === null
    ? 'no regression: no baseline to regress against (the first comparable complete campaign), whatever its pass rate'
    : `no regression against ${entry.baseline}`;
}

function changeList(entry: SiteHistoryEntry): string {
  const items = [
    ...entry.regressions.map(
      (change) =>
        `<li class="regression">regressed: ${esc(change.caseId)} × ${esc(change.configId)} ${percent(change.before)} → ${percent(change.after)}</li>`,
    ),
    ...entry.recoveries.map(
      (change) =>
        `<li class="recovery">recovered: ${esc(change.caseId)} × ${esc(change.configId)} ${percent(change.before)} → ${percent(change.after)}</li>`,
    ),
  ];
  if (entry.baseline === null) return '<span class="note">no comparable complete campaign before it</span>';
  return `<span class="note">vs ${esc(entry.baseline)}</span>${items.length === 0 ? ' · no change' : `<ul>${items.join('')}</ul>`}`;
}

function entryRow(entry: SiteHistoryEntry): string {
  return `<tr data-campaign="${esc(entry.campaignId)}"><td><a href="${esc(entry.folder)}/index.html">${esc(entry.campaignId)}</a></td><td>${statusTag(entry)}${entry.green ? ` <span class="tag complete">green</span> <span class="note" data-green>${esc(greenText(entry))}</span>` : ''}</td><td>${esc(entry.startedAt ?? 'unknown')}</td><td>${entry.attempts}</td><td data-pass-rate="${entry.passRate ?? ''}">${percent(entry.passRate)}</td><td>${esc(costText(entry.cost, entry.completeness !== 'complete'))}</td><td>${changeList(entry)}</td></tr>`;
}

/** One group's timeline as an SVG polyline (values 0…max over the group's campaigns, oldest left). */
function timeline(
  label: string,
  series: readonly { name: string; values: readonly (number | null)[] }[],
  max: number,
  format: (value: number) => string,
): string {
  const width = 480;
  const height = 120;
  const count = Math.max(1, ...series.map((line) => line.values.length));
  const x = (index: number): number => (count === 1 ? width / 2 : 30 + (index * (width - 60)) / (count - 1));
  const y = (value: number): number => height - 15 - (max === 0 ? 0 : (value / max) * (height - 30));
  const colours = ['#0072B2', '#D55E00'];
  const lines = series
    .map((line, which) => {
      const points = line.values
        .map((value, index) => (value === null ? null : `${x(index).toFixed(1)},${y(value).toFixed(1)}`))
        .filter((point) => point !== null);
      const dots = line.values
        .map((value, index) =>
          value === null
            ? ''
            : `<circle cx="${x(index).toFixed(1)}" cy="${y(value).toFixed(1)}" r="3" fill="${colours[which] ?? '#444'}"><title>${esc(line.name)}: ${esc(format(value))}</title></circle>`,
        )
        .join('');
      return `<polyline fill="none" stroke="${colours[which] ?? '#444'}" stroke-width="2" points="${points.join(' ')}"/>${dots}`;
    })
    .join('');
  // One line: the label names it; two: each is named in its colour (never "pass rate: pass rate").
  const legend =
    series.length === 1
      ? ''
      : `: ${series.map((line, which) => `<span style="color:${colours[which] ?? '#444'}">${esc(line.name)}</span>`).join(' · ')}`;
  return `<figure><svg role="img" aria-label="${esc(label)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><line x1="20" y1="${height - 15}" x2="${width - 10}" y2="${height - 15}" stroke="#9ca3af"/>${lines}</svg><figcaption class="note">${esc(label)}${legend} (per complete campaign, oldest left; axis 0 to ${esc(format(max))})</figcaption></figure>`;
}

function groupSection(group: SiteGroup, index: number): string {
  const lanes = group.lanes
    .map(
      (lane) =>
        `${lane.id} (${lane.provider} ${lane.model}${lane.driver === null ? '' : `, ${lane.driver}`})`,
    )
    .join('; ');
  const maxCost = Math.max(
    0,
    ...group.points.flatMap((point) =>
      [point.providerReportedNanodollars, point.estimatedNanodollars].filter((value) => value !== null),
    ),
  );
  return `<section class="group" data-group="${esc(group.comparableKey)}"><h3>Group ${index + 1}: ${group.points.length} complete campaign(s)</h3>
<p class="note">lanes: ${esc(lanes)} · suite ${esc(group.suiteFingerprint)}</p>
<p class="note">campaigns: ${group.points.map((point) => esc(point.campaignId)).join(' → ')}</p>
${timeline('Pass rate', [{ name: 'pass rate', values: group.points.map((point) => point.passRate) }], 1, percent)}
${timeline(
  'Cost',
  [
    { name: 'provider-reported', values: group.points.map((point) => point.providerReportedNanodollars) },
    { name: 'estimated', values: group.points.map((point) => point.estimatedNanodollars) },
  ],
  maxCost,
  money,
)}</section>`;
}

/** The site's root index.html. */
export function renderSiteIndex(history: SiteHistory): string {
  const head =
    '<tr><th>Campaign</th><th>Status</th><th>Started</th><th>Attempts</th><th>Pass rate</th><th>Cost</th><th>Against the previous comparable complete campaign</th></tr>';
  const body = `<h1>Campaigns</h1>
<p>latest: ${history.latest === null ? 'none' : esc(history.latest)} · latest green: ${history.latestGreen === null ? 'none' : esc(history.latestGreen)} · <a href="history.json">history.json</a> · <a href="latest.json">latest.json</a> · <a href="latest-green.json">latest-green.json</a></p>
<p class="note">Green: a complete campaign in which no case × config regressed (its majority of attempts solved, then not) against the previous comparable complete campaign. It says nothing of the pass rate itself, and a first campaign, with no baseline, is green.</p>
<p class="note">Partial campaigns and runs without a campaign record are listed, never trend points or baselines. Trends compare only campaigns with the same lanes (provider, model, driver) and suite fingerprint.</p>
<table id="campaigns"><thead>${head}</thead><tbody>${history.campaigns.map(entryRow).join('')}</tbody></table>
<h2>Timelines by comparable group</h2>
${history.groups.length === 0 ? '<p class="note">No complete campaign yet.</p>' : history.groups.map(groupSection).join('\n')}
<h2>Re-renders</h2>
<p class="note">Report refreshes of an earlier campaign (zero provider calls): listed apart, never trend points, never latest.</p>
${history.rerenders.length === 0 ? '<p class="note">None.</p>' : `<table id="rerenders"><thead>${head}</thead><tbody>${history.rerenders.map(entryRow).join('')}</tbody></table>`}`;
  return sitePage('Paperclip Evals — campaigns', body, 0);
}

/** One row of a case page: an attempt and its page. */
export interface CaseRow {
  readonly configId: string;
  readonly attemptId: string;
  readonly status: string;
  readonly page: string;
}

/** A case page (`tests/<case>.html`): the case's attempts by config, each linking to its page. */
export function renderCasePage(
  campaign: Pick<SiteCampaign, 'campaignId'>,
  caseId: string,
  rows: readonly CaseRow[],
): string {
  const body = `<p><a href="../index.html">Campaign ${esc(campaign.campaignId)}</a></p>
<h1>Case ${esc(caseId)}</h1>
<table><thead><tr><th>Config</th><th>Attempt</th><th>Status</th></tr></thead><tbody>${rows
    .map(
      (row) =>
        `<tr><td>${esc(row.configId)}</td><td><a href="../${esc(row.page)}">${esc(row.attemptId)}</a></td><td>${esc(row.status)}</td></tr>`,
    )
    .join('')}</tbody></table>`;
  return sitePage(`Case ${caseId} — ${campaign.campaignId}`, body, 3);
}

/** One cost figure of an attempt: money() as every page shows it; `none` when the attempt has no such figure. */
const figure = (nanodollars: number | null): string => (nanodollars === null ? 'none' : money(nanodollars));

const row = (name: string, value: string): string =>
  `<tr><th scope="row">${esc(name)}</th><td>${value}</td></tr>`;

/** A public attempt page: the allowlisted fields only. */
export function renderPublicAttemptPage(attempt: PublicAttempt, casePageHref: string): string {
  const body = `<p><a href="../index.html">Campaign ${esc(attempt.runId)}</a> · <a href="../${esc(casePageHref)}">case ${esc(attempt.caseId)}</a></p>
<h1>Attempt ${esc(attempt.attemptId)}</h1>
<table>${[
    row('status', esc(attempt.status)),
    row('case × config', `${esc(attempt.caseId)} × ${esc(attempt.configId)}`),
    row('runner', `${esc(attempt.runner.package)} · harness driver ${esc(attempt.runner.driver)}`),
    row(
      "model (provider · model · config's driver)",
      esc(
        [attempt.model.provider, attempt.model.requestedModel, attempt.model.driver]
          .filter((part) => part !== null)
          .join(' · ') || 'not recorded',
      ),
    ),
    row(
      'terminal',
      `turn ${esc(attempt.terminal.turn)} · run ${esc(attempt.terminal.run)} · ${esc(attempt.terminal.workDisposition)}`,
    ),
    row(
      'failure',
      attempt.failure === null
        ? 'none'
        : `${esc(attempt.failure.classification)} · ${esc(attempt.failure.code)}`,
    ),
    row(
      'infrastructure failure',
      attempt.infrastructureFailure === null
        ? 'none'
        : `${esc(attempt.infrastructureFailure.class)} · ${esc(attempt.infrastructureFailure.category)} · ${attempt.infrastructureFailure.retryable ? 'retryable' : 'not retryable'}`,
    ),
    row(
      'usage',
      `${attempt.usage.inputTokens} in · ${attempt.usage.outputTokens} out · ${attempt.usage.totalTokens} tokens · ${attempt.usage.requestCount} requests · ${attempt.usage.durationMs} ms`,
    ),
    row('started', esc(attempt.startedAt ?? 'not recorded')),
    row(
      'cost',
      `provider-reported ${esc(figure(attempt.cost.providerReportedNanodollars))} · estimated ${esc(figure(attempt.cost.estimatedNanodollars))} (kept apart, never added) · coverage: ${esc(attempt.cost.coverage)}`,
    ),
    row(
      'transcript',
      `${attempt.transcript.complete ? 'complete' : 'incomplete'}: the runner's transcript holds ${attempt.transcript.eventCount} events`,
    ),
  ].join('')}</table>
<h2>Checks</h2>
${attempt.checks.length === 0 ? '<p class="note">No checks.</p>' : `<table><thead><tr><th>Check</th><th>Layer</th><th>Status</th><th>Score</th></tr></thead><tbody>${attempt.checks.map((check) => `<tr><td>${esc(check.checkId)}</td><td>${esc(check.layer ?? 'runner')}</td><td>${esc(check.status)}</td><td>${check.score ?? ''}</td></tr>`).join('')}</tbody></table>`}
<h2>Tools</h2>
${attempt.tools.length === 0 ? '<p class="note">No tool calls.</p>' : `<table><thead><tr><th>Tool</th><th>Outcome</th><th>Denial</th></tr></thead><tbody>${attempt.tools.map((tool) => `<tr><td>${esc(tool.name)}</td><td>${esc(tool.outcome ?? 'no result')}</td><td>${tool.denial === null ? '' : `${esc(tool.denial.code)} · ${esc(tool.denial.authorizationBoundary)} · ${tool.denial.retryable ? 'retryable' : 'not retryable'}`}</td></tr>`).join('')}</tbody></table>`}
<p class="note">Public projection: tool inputs and results, session ids, failure text and traces are not published.</p>
<h2>Conversation</h2>
${attempt.conversationWithheld !== null ? `<p class="note" data-field="conversation-withheld">Progress text not published: ${esc(attempt.conversationWithheld)}.</p>` : attempt.conversation.length === 0 ? '<p class="note">No progress text recorded.</p>' : attempt.conversation.map((text) => `<pre>${esc(text)}</pre>`).join('')}`;
  return sitePage(`Attempt ${attempt.attemptId}`, body, 3);
}

/**
 * The sha256 (base64, as a CSP names it) of every script a published page may carry: the report's
 * report.js, inlined in each campaign's grid page, and clip.js, an attempt's replay page's one script. `evals publish --verify` refuses any other.
 */
export function siteScriptHashes(): string[] {
  const assets = reportPageAssets();
  return [assets.scriptSha256, assets.clipScriptSha256];
}
