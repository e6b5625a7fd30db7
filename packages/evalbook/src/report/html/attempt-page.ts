// The ONE attempt replay renderer: an AttemptReplay (../attempt-replay.ts) as HTML, read-only.
//
//   renderAttemptReplay(replay): string
//     an HTML fragment (<article class="replay">) — what the report's drill-down shows for an
//     attempt (render-html.ts puts one per embedded attempt in a <template>) and what a page wraps.
//   renderAttemptPage(replay, { title, backHref? }): string
//     a whole self-contained page around that fragment: the replay's stylesheet (replay.css) and one
//     small script (clip.js: a long text's "show all") inlined, a Content-Security-Policy allowing
//     those two by sha256 and nothing else (nothing from the network; it works from file://), an optional link back (to
//     the report or a site's index). For the published site and `evals report --attempt`.
//   renderAttemptPageBytes(replay, options): Buffer
//     the same page's UTF-8 bytes, its frame (head, stylesheet, script) encoded once: the site's.
//
// The fragment needs no script: tool calls, event payloads and the proposed result expand with
// <details>; long text shows its head and a "show all" button (html-text.ts text(), wired by
// report.js in the report, by clip.js on a replay page; without script the head shows). Every string from the evalbook is escaped (esc/text).
// Marks: a denied call shows its code and authorization boundary, a conflict or failure its code; a
// missing recording is a visible block with the reason, never an empty page.
// Every secret is masked, on every page, with no option to forget (../masked.ts): the recorded text
// as html-text.ts writes it, and the page as a whole (maskedPage).
import { count, esc, jsonHtml, money as shownMoney, text, tip } from './html-text.js';
import { replayPageCsp, reportPageAssets } from './page-assets.js';
import { ATTEMPT_REPLAY_V1 } from '../attempt-replay.js';
import { maskedPage } from '../masked.js';

import type { AttemptReplay, ReplayEvent, ReplayToolCall, ReplayTurn } from '../attempt-replay.js';

const show = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined || value === '' ? '&mdash;' : text(String(value));
const dl = (rows: readonly (readonly [string, string])[]): string =>
  `<dl>${rows.map(([name, value]) => `<dt>${esc(name)}</dt><dd>${value}</dd>`).join('')}</dl>`;
const chip = (status: string): string =>
  `<span class="chip ${esc(status)}">${esc(status.replaceAll('_', ' '))}</span>`;
/** Recorded JSON, inside a <details> (laid out only when opened): clipped past JSON_TEXT_LIMIT. */
const JSON_TEXT_LIMIT = 4000;
const json = (value: unknown): string => `<pre class="json">${jsonHtml(value, JSON_TEXT_LIMIT)}</pre>`;
/** A cost figure as every page shows money (html-text's money); the exact nanodollars on data-nanodollars. */
const money = (nanodollars: number | null): string =>
  nanodollars === null ? 'none' : `<span data-nanodollars="${nanodollars}">${shownMoney(nanodollars)}</span>`;
const ms = (value: number | null): string => (value === null ? '&mdash;' : `${count(value)} ms`);
const box = (id: string, title: string, body: string, extra = ''): string =>
  `<section class="replay-${id}"${extra}><h4>${esc(title)}</h4>${body}</section>`;

/** A tool call's mark: `denied: <code> at <boundary>`, or the outcome and its code. */
function markText(call: ReplayToolCall): string {
  if (call.mark === null) return '';
  const code = call.denial?.code ?? call.code;
  const boundary = call.denial?.authorizationBoundary ?? call.authorizationBoundary;
  const retryable = call.denial?.retryable ?? call.retryable;
  return `${call.mark}${code === null ? '' : `: ${code}`}${call.mark === 'denied' && boundary !== null ? ` at ${boundary}` : ''}${retryable === true ? ' (retryable)' : ''}`;
}

function toolCall(call: ReplayToolCall): string {
  const mark = markText(call);
  const rows: [string, string][] = [
    ['call', `<code>${text(call.callId)}</code>`],
    ['outcome', call.outcome === null ? 'no result recorded' : esc(call.outcome)],
    ['code', show(call.code)],
    ['authorization boundary', show(call.authorizationBoundary)],
    ['retryable', show(call.retryable)],
    ['at', show(call.at)],
    ['took', ms(call.durationMs)],
  ];
  if (call.denial !== null)
    rows.push([
      'denial',
      `<span data-field="denial">${text(`${call.denial.code} at ${call.denial.authorizationBoundary}${call.denial.retryable ? ' (retryable)' : ''}`)}</span>`,
    ]);
  return `<details class="tool${call.mark === null ? '' : ` marked ${esc(call.mark)}`}" data-call-id="${esc(call.callId)}" data-outcome="${esc(call.outcome ?? '')}"${call.mark === null ? '' : ` data-mark="${esc(call.mark)}"`}><summary><span class="tool-name">${text(call.operationId)}</span> <code class="note">${text(call.callId)}</code> ${call.outcome === null ? '<span class="chip incomplete">no result</span>' : chip(call.outcome)}${mark === '' ? '' : ` <span class="tool-mark" data-field="mark">${text(mark)}</span>`}</summary>
<div class="tool-body">${dl(rows)}<h5>Input</h5>${json(call.input)}<h5>Result</h5>${call.result === null ? '<p class="note">No result was recorded for this call.</p>' : json(call.result.envelope)}</div></details>`;
}

function event(entry: ReplayEvent): string {
  const meta = `<span class="event-meta">${esc(entry.eventType)}${entry.channel === null ? '' : ` &middot; ${esc(entry.channel)}`}${entry.at === null ? '' : ` &middot; ${esc(entry.at)}`}</span>`;
  if (entry.text !== null)
    return `<div class="msg" data-event-type="${esc(entry.eventType)}"${entry.channel === null ? '' : ` data-channel="${esc(entry.channel)}"`}>${meta}<p class="msg-text">${text(entry.text)}</p></div>`;
  return `<details class="event" data-event-type="${esc(entry.eventType)}"><summary>${meta}</summary>${json(entry.payload)}</details>`;
}

function turn(entry: ReplayTurn): string {
  return `<div class="turn"${entry.turnId === null ? '' : ` data-turn="${esc(entry.turnId)}"`}><div class="turn-head">${entry.turnId === null ? 'outside a turn' : `turn <code>${text(entry.turnId)}</code>`}</div>${entry.entries
    .map((item) => (item.kind === 'tool_call' ? toolCall(item) : event(item)))
    .join('\n')}</div>`;
}

function recordingBlock(replay: AttemptReplay): string {
  if (replay.recording === 'complete') return '';
  const title = replay.recording === 'missing' ? 'Recording missing' : 'Recording incomplete';
  return `<div class="recording ${replay.recording}" role="note" data-recording="${replay.recording}"><strong>${title}</strong>: ${show(replay.recordingReason)}</div>`;
}

function transcript(replay: AttemptReplay): string {
  const entries = replay.turns.reduce((sum, entry) => sum + entry.entries.length, 0);
  // Each count says what it counts: the bundle's events, the entries they are shown as (a tool
  // call's call and result events are one entry; the terminal events are under "Terminal state").
  const counted =
    replay.events === null
      ? `${count(entries)} entries`
      : `the bundle's ${count(replay.events.inBundle)} events as ${count(entries)} entries: a tool call's call and result events are one entry${replay.events.terminal === 0 ? '' : `, ${count(replay.events.terminal)} terminal events are under "Terminal state"`}`;
  const body =
    replay.turns.length === 0
      ? `<p class="note">Nothing to replay${replay.recording === 'missing' ? ': the recording is missing (above)' : ''}.</p>`
      : replay.turns.map(turn).join('\n');
  return box(
    'transcript',
    `Transcript (${counted}; ${count(replay.toolCalls)} tool calls, ${count(replay.markedToolCalls)} denied, failed or in conflict)`,
    body,
  );
}

function promptSection(replay: AttemptReplay): string {
  const prompt =
    replay.case.prompt === null
      ? `<p class="note" data-field="prompt-missing">No prompt: ${text(replay.case.promptMissing ?? 'none recorded')}.</p>`
      : `<blockquote class="prompt" data-field="prompt">${text(replay.case.prompt)}</blockquote>`;
  return box(
    'prompt',
    'Case and config',
    `${prompt}${dl([
      ['case', `<code>${text(replay.key.caseId)}</code>`],
      ['description', show(replay.case.description)],
      ['config', `<code>${text(replay.key.configId)}</code>`],
      ['model', show(replay.config.model)],
      ["config's driver", show(replay.config.driver)],
      ['config description', show(replay.config.description)],
    ])}`,
  );
}

function outcomeSection(replay: AttemptReplay): string {
  const proposed = replay.proposedResult;
  return box(
    'outcome',
    'Terminal state and proposed result',
    `${dl([
      ['turn', show(replay.terminal.turn)],
      ['run', show(replay.terminal.run)],
      ['work', show(replay.terminal.workDisposition)],
      [
        'failure',
        replay.failure === null
          ? 'none'
          : `<span data-field="failure">${text(`${replay.failure.classification}: ${replay.failure.code}`)}</span>${replay.failure.retryable === undefined ? '' : replay.failure.retryable ? ' (retryable)' : ' (not retryable)'}`,
      ],
      ['message', show(replay.failure?.message)],
      ['proposed summary', proposed === null ? 'no result proposed' : show(proposed.summary)],
      ['reported disposition', show(proposed?.reportedWorkDisposition)],
      ['objective satisfied', show(proposed?.objectiveSatisfied)],
    ])}${proposed === null ? '' : `<details class="event"><summary>the proposed result, as recorded</summary>${json(proposed.payload)}</details>`}`,
  );
}

function checksSection(replay: AttemptReplay): string {
  const rows = replay.checks
    .map(
      (check) =>
        `<tr data-check="${esc(check.checkId)}" data-status="${esc(check.status)}"><td><code>${text(check.checkId)}</code></td><td>${check.layer === null ? 'runner' : esc(String(check.layer))}</td><td>${chip(check.status)}</td><td class="n">${check.score === null ? '&mdash;' : esc(String(check.score))}</td><td>${show(check.reason)}</td></tr>`,
    )
    .join('');
  return box(
    'checks',
    `Checks (${replay.checks.length})`,
    replay.checks.length === 0
      ? '<p class="note">No checks observed.</p>'
      : `<div class="table-wrap"><table><thead><tr><th scope="col">check</th><th scope="col">layer</th><th scope="col">verdict</th><th scope="col" class="n">score</th><th scope="col">explanation</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

function costSection(replay: AttemptReplay): string {
  const cost = replay.cost;
  return box(
    'cost',
    'Cost and provenance',
    dl([
      [
        'counted',
        `<strong data-field="effectiveNanodollars">${cost.effectiveNanodollars === null ? 'unpriced (not counted as 0)' : money(cost.effectiveNanodollars)}</strong>`,
      ],
      ['coverage', `<span data-field="coverage">${esc(cost.coverage)}</span>`],
      ['provider-reported', money(cost.providerReportedNanodollars)],
      [
        'receipt source',
        `<span data-field="providerReportedProvenance">${show(cost.providerReportedProvenance)}</span>`,
      ],
      ['estimate', money(cost.estimatedNanodollars)],
      ['estimate source', show(cost.estimateSource)],
      ['pricing version', show(cost.pricingVersion)],
      ['legacy ledger', money(cost.legacyLedgerNanodollars)],
      ['notes', show(cost.notes.join(', '))],
    ]),
    ' data-field="cost"',
  );
}

function artifactsSection(replay: AttemptReplay): string {
  const rows = replay.artifacts.references
    .map(
      (ref) =>
        `<tr data-verification="${esc(ref.verification)}"><td>${esc(ref.role)}</td><td><code>${text(ref.uri)}</code></td><td><code title="${tip(ref.sha256)}">${text(ref.sha256)}</code></td><td class="n">${count(ref.byteSize)}</td><td>${text(ref.mediaType)}</td><td>${chip(ref.verification)}</td></tr>`,
    )
    .join('');
  return box(
    'artifacts',
    `Artifacts: ${replay.artifacts.verification}`,
    replay.artifacts.references.length === 0
      ? '<p class="note">No artifact references.</p>'
      : `<div class="table-wrap"><table><thead><tr><th scope="col">role</th><th scope="col">uri</th><th scope="col">sha256</th><th scope="col" class="n">bytes</th><th scope="col">media type</th><th scope="col">verification</th></tr></thead><tbody>${rows}</tbody></table></div><p class="note">verified: ingest read the bytes under --artifact-root and their sha256 matched &middot; unverified: not checked (no --artifact-root, or the file absent there) &middot; mismatched: the bytes differ.</p>`,
    ` data-artifacts="${replay.artifacts.verification}"`,
  );
}

function evalSessionSection(replay: AttemptReplay): string {
  const session = replay.evalSession;
  if (session === null) return '';
  const failure = session.infrastructureFailure;
  return box(
    'eval-session',
    'Eval-session artifact',
    `${dl([
      ['artifact sha256', `<code>${text(session.artifactSha256)}</code>`],
      ['provider', show(session.provider)],
      ['provider version', show(session.providerVersion)],
      ["session's driver", show(session.driver)],
      ['requested model', show(session.requestedModel)],
      ['provider session', show(session.providerSessionId)],
      [
        'runnerd sha256',
        session.runnerdSha256 === null
          ? 'none (no session ran)'
          : `<code>${text(session.runnerdSha256)}</code>`,
      ],
      [
        'turn',
        session.turn === null
          ? 'none (no turn ran)'
          : `${text(session.turn.turnId)}: ${text(session.turn.status)}`,
      ],
      [
        'infrastructure failure',
        failure === null
          ? 'none'
          : `<span data-field="infrastructureFailure">${text(`${failure.class} (${failure.category}), ${failure.retryable ? 'retryable' : 'not retryable'}`)}</span>`,
      ],
      ['error', show(session.errorMessage)],
      ...(session.timing === null
        ? ([['timing', 'none (no session ran)']] as [string, string][])
        : ([
            ['started', show(session.timing.startedAt)],
            ['finished', show(session.timing.finishedAt)],
            ['duration', ms(session.timing.durationMs)],
          ] as [string, string][])),
    ])}${session.turn === null || session.turn.assistantText === '' ? '' : `<h5>The assistant's text</h5><div class="msg" data-event-type="eval-session.turn"><p class="msg-text">${text(session.turn.assistantText)}</p></div>`}${session.accounting === null ? '<p class="note">The artifact omitted its usage: cost unknown (unpriced), never 0.</p>' : `<details class="event"><summary>the artifact's accounting (usage), as recorded</summary>${json(session.accounting)}</details>`}`,
  );
}

/** What the header says of the attempt's suite: foreign (and how), of it (checked), or not checked. */
function environmentText(replay: AttemptReplay): string {
  if (replay.environmentMismatch.length > 0)
    return `<span data-field="environmentMismatch">foreign (counted only with --include-foreign): ${text(replay.environmentMismatch.map((entry) => `${entry.field} ${entry.received}${entry.expected === null ? '' : ` (expected ${entry.expected})`}`).join('; '))}</span>`;
  return replay.environmentChecked
    ? `<span data-field="environment">of the environment's suite: its case and config digests match</span>`
    : `<span data-field="environment">not checked: no environment file was given here, and ingest recorded no mismatch</span>`;
}

/**
 * One attempt's replay as an HTML fragment (see the top of this file). `heading`: its own heading
 * (the attempt's id and status); a page gives false and says both in its h1 (never twice).
 */
export function renderAttemptReplay(replay: AttemptReplay, heading = true): string {
  const { key, verdict } = replay;
  return `<article class="replay" data-attempt="${esc(key.attemptId)}" data-status="${esc(verdict.status)}" data-recording="${replay.recording}">
${heading ? `<h3>Attempt <code>${text(key.attemptId)}</code> ${chip(verdict.status)}</h3>` : ''}
${verdict.reason === null ? '' : `<p class="replay-reason">${text(verdict.reason)}</p>`}
${dl([
  ['run', `<code>${text(key.runId)}</code>`],
  ['case', `<code>${text(key.caseId)}</code>`],
  ['config', `<code>${text(key.configId)}</code>`],
  ['provenance', esc(replay.provenance)],
  ['runner package', text(replay.runner.package)],
  ["runner's harness driver", text(replay.runner.driver)],
  ['bundle digest', `<code data-field="bundleDigest">${text(replay.bundleDigest)}</code>`],
  ['environment', environmentText(replay)],
])}
${
  replay.retraction === null
    ? ''
    : `<div class="recording retracted" role="note" data-retracted><strong>Retracted</strong>${replay.retraction.attemptId === null ? ' (its whole run)' : ''} by ${text(replay.retraction.by)} at ${esc(replay.retraction.at)}: ${text(replay.retraction.reason)}. Reports, grids, comparisons and gates leave it out.</div>`
}
${recordingBlock(replay)}
${promptSection(replay)}
${transcript(replay)}
<div class="replay-facts">
${outcomeSection(replay)}
${checksSection(replay)}
${box(
  'usage',
  'Usage and timing',
  dl([
    ['input tokens', count(replay.usage.inputTokens)],
    ['output tokens', count(replay.usage.outputTokens)],
    ['total tokens', count(replay.usage.totalTokens)],
    ['requests', count(replay.usage.requestCount)],
    ['started', show(replay.timing.startedAt)],
    ['ended', show(replay.timing.endedAt)],
    ['duration', ms(replay.timing.durationMs)],
    [
      'transcript',
      `${replay.transcript.complete ? 'complete' : 'INCOMPLETE'}: the runner's transcript holds ${count(replay.transcript.eventCount)} events${replay.transcript.omissionReason === null ? '' : ` (${text(replay.transcript.omissionReason)})`}`,
    ],
  ]),
)}
${costSection(replay)}
${artifactsSection(replay)}
${evalSessionSection(replay)}
</div>
</article>`;
}

export interface AttemptPageOptions {
  readonly title: string;
  /** A relative link back (the report, the site's index); none when absent. A scheme is refused. */
  readonly backHref?: string;
  /** Relative links in the page's header (a site's: All campaigns, the campaign, the case). A scheme is refused. */
  readonly links?: readonly { readonly href: string; readonly label: string }[];
}

/** What every replay page holds around its title and its replay: made once (issue 19). */
interface PageFrame {
  /** From the doctype to `<title>`. */
  readonly open: string;
  /** From `</title>` (the stylesheet, the CSP'd head) to `<h1>`. */
  readonly head: string;
  /** From the footer to the end (the script). */
  readonly close: string;
  readonly openBytes: Buffer;
  readonly headBytes: Buffer;
  readonly closeBytes: Buffer;
}

let pageFrame: PageFrame | undefined;

function frame(): PageFrame {
  if (pageFrame !== undefined) return pageFrame;
  const { replayStyle, replayStyleSha256, clipScript, clipScriptSha256 } = reportPageAssets();
  const open = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(replayPageCsp(replayStyleSha256, clipScriptSha256))}">
<meta name="generator" content="Paperclip Evals (${ATTEMPT_REPLAY_V1})">
<title>`;
  const head = `</title>
<style>${replayStyle}</style>
</head>
<body>
<main class="replay-page">
<header><h1>`;
  const close = `
<footer>Paperclip Evals &middot; ${ATTEMPT_REPLAY_V1} &middot; one self-contained file: it loads nothing from the network.</footer>
</main>
<script>${clipScript}</script>
</body>
</html>
`;
  pageFrame = {
    open,
    head,
    close,
    openBytes: Buffer.from(open, 'utf8'),
    headBytes: Buffer.from(head, 'utf8'),
    closeBytes: Buffer.from(close, 'utf8'),
  };
  return pageFrame;
}

/** The page's own parts: its title (as a tooltip) and everything from its heading to the replay's end. */
function pageParts(replay: AttemptReplay, options: AttemptPageOptions): readonly [string, string] {
  // A link with a scheme (javascript:, https:) would leave the offline page, or run: relative only.
  for (const href of [options.backHref, ...(options.links ?? []).map((link) => link.href)])
    if (href !== undefined && /^[a-z][a-z0-9+.-]*:/i.test(href.trim()))
      throw new Error(
        `renderAttemptPage: every link must be a relative link, received ${JSON.stringify(href)}`,
      );
  const back =
    (options.backHref === undefined
      ? ''
      : `<p><a href="${esc(options.backHref)}" data-field="back">← back</a></p>`) +
    (options.links === undefined || options.links.length === 0
      ? ''
      : `<nav class="site-nav">${options.links.map((link) => `<a href="${esc(link.href)}">${esc(link.label)}</a>`).join(' &middot; ')}</nav>`);
  // Masked as every page is (../masked.ts): its recorded text as it is written (text, tip, jsonHtml),
  // then the page's own parts as a whole (the frame around them is this module's, and holds none).
  return [
    maskedPage(tip(options.title)),
    maskedPage(
      `${text(options.title)} ${chip(replay.verdict.status)}</h1>${back}</header>\n${renderAttemptReplay(replay, false)}`,
    ),
  ];
}

/** One attempt's replay as a whole self-contained page (see the top of this file). */
export function renderAttemptPage(replay: AttemptReplay, options: AttemptPageOptions): string {
  const { open, head, close } = frame();
  const [title, body] = pageParts(replay, options);
  return `${open}${title}${head}${body}${close}`;
}

/**
 * The same page as its UTF-8 bytes, for a site that writes 100,000 of them: the frame's bytes are
 * encoded once, only the page's own parts each time. The page's markup is ASCII (its dashes and
 * middle dots are character references), so a page whose recorded text is ASCII too is a one-byte
 * string, and its UTF-8 bytes are its Latin-1 bytes: copied, not encoded (issue 19). Checked, never
 * assumed: a part with any character past U+007F (its UTF-8 length is not its length) is encoded
 * as UTF-8.
 */
export function renderAttemptPageBytes(replay: AttemptReplay, options: AttemptPageOptions): Buffer {
  const { openBytes, headBytes, closeBytes } = frame();
  const [title, body] = pageParts(replay, options);
  return Buffer.concat([openBytes, utf8Bytes(title), headBytes, utf8Bytes(body), closeBytes]);
}

/** `Buffer.from(part, 'utf8')`, copied as Latin-1 when the part is ASCII (the same bytes). */
function utf8Bytes(part: string): Buffer {
  return Buffer.from(part, Buffer.byteLength(part, 'utf8') === part.length ? 'latin1' : 'utf8');
}
