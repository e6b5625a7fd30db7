// The HTML report: one self-contained page (inline CSS, JS and SVG; no network). Placeholder until
// the renderer lands: it already carries the whole summary as JSON so nothing is lost.
import type { ReportBudget, GateResult } from './report.js';
import type { EvalbookSummary } from './summary.js';

/** One attempt as the page's drill-down shows it: the JSON report's row plus its tool calls. */
export type HtmlAttempt = Record<string, unknown> & { readonly toolCallDetails: readonly unknown[] };

export interface HtmlReportInput {
  readonly title: string;
  readonly storeUrl: string;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateResult | null;
  /** At most HTML_MAX_ATTEMPTS; summary.attempts says how many there are in all. */
  readonly attempts: readonly HtmlAttempt[];
}

export function renderHtml(input: HtmlReportInput): string {
  const data = JSON.stringify(input).replaceAll('<', '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${input.title.replaceAll('<', '&lt;')}</title></head><body><script type="application/json" id="report-data">${data}</script></body></html>\n`;
}
