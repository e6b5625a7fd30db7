// `evals publish`, `evals publish --verify` and `evals view`: thin faces over app's site workflows
// (publishSite, verifySite, serveSite). Publish prints each campaign folder (published or unchanged)
// and the latest / latest green; verify prints every defect with its code (exit 1 when any); view
// prints the URL and serves until Ctrl-C or SIGTERM. Publish says which staging folders of gone
// publishers it removed (and which it left, why), and on SIGINT/SIGTERM what was cleaned up; verify
// prints at most VERIFY_ISSUES_SHOWN defects, then how many more (--json lists every one).
import { shellCommand } from '@paperclip-evals/contract';
import { noticeOnStop } from '@paperclip-evals/node';

import { usageError } from '../exit-codes.js';
import { clearProgress, drawProgress, isTerminal, painted, printJson, printLines } from '../print.js';

import type { Outcome } from '../exit-codes.js';

export interface PublishCommandOptions {
  readonly store?: string;
  readonly env?: string;
  readonly out?: string;
  readonly campaign?: string;
  readonly as?: string;
  readonly public: boolean;
  readonly threads?: string;
  readonly verify?: string;
  readonly json: boolean;
}

/** `publish --verify` lists at most this many defects, then "and N more" (as other commands' lists). */
export const VERIFY_ISSUES_SHOWN = 20;

/**
 * On a terminal's stderr, a line while a site is written or checked — what (the site as text, its
 * control characters escaped), for a publication the campaign folders done so far, the seconds since
 * the start — drawn at once and redrawn every second (the page workers report nothing finer), until
 * `stop` clears it; elsewhere (piped, CI, --json) nothing.
 */
function siteProgress(
  what: 'publishing into' | 'verifying',
  site: string,
  shown: boolean,
): { readonly campaignDone: () => void; readonly stop: () => void } {
  if (!shown || !isTerminal('stderr')) return { campaignDone: () => undefined, stop: () => undefined };
  const started = performance.now();
  let campaigns = 0;
  const draw = (): void => {
    drawProgress({
      label: `${what} ${site}`,
      parts: [
        ...(what === 'verifying' ? [] : [`${campaigns} campaign folder(s) done`]),
        `${Math.floor((performance.now() - started) / 1000)}s`,
      ],
    });
  };
  draw();
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    campaignDone: () => {
      campaigns += 1;
      draw();
    },
    stop: () => {
      clearInterval(timer);
      clearProgress();
    },
  };
}

export async function runPublish(options: PublishCommandOptions): Promise<Outcome> {
  if (options.verify !== undefined) {
    const publishing = [
      ...(options.out === undefined ? [] : ['--out']),
      ...(options.store === undefined ? [] : ['--store']),
      ...(options.campaign === undefined ? [] : ['--campaign']),
      ...(options.as === undefined ? [] : ['--as']),
      ...(options.public ? ['--public'] : []),
    ];
    if (publishing.length > 0)
      throw usageError(
        `--verify SITE takes no --out, --store, --campaign, --as or --public: it only checks a site (nothing was done); drop ${publishing.join(', ')}, or drop --verify to publish`,
        {
          code: 'options_conflict',
          component: publishing.join(', '),
          expected: '--verify SITE with --threads or --json only',
          received: `--verify with ${publishing.join(', ')}`,
        },
      );
    const [{ verifySite }, { checkedThreads }] = await Promise.all([
      import('@paperclip-evals/app/site/verify'),
      import('@paperclip-evals/app/site/publish'),
    ]);
    const progress = siteProgress('verifying', options.verify, !options.json);
    const result = await verifySite(
      options.verify,
      options.threads === undefined ? {} : { threads: checkedThreads(options.threads, '--threads') },
    ).finally(progress.stop);
    if (options.json) printJson(result);
    else if (result.ok)
      printLines('stdout', [
        [
          painted('green', 'verified'),
          `: ${result.site} · ${result.files} files · ${result.campaigns} campaign folder(s), every one as its manifest lists it`,
        ],
      ]);
    else
      printLines('stdout', [
        [
          painted('red', 'refused'),
          `: ${result.site} · ${result.issues.length} defect(s) — do not upload it`,
        ],
        ...result.issues
          .slice(0, VERIFY_ISSUES_SHOWN)
          .map((issue) => `  ${issue.code} ${issue.path ?? ''}: ${issue.message}`),
        ...(result.issues.length > VERIFY_ISSUES_SHOWN
          ? [`  … and ${result.issues.length - VERIFY_ISSUES_SHOWN} more (--json lists every one)`]
          : []),
      ]);
    return result.ok ? 'ok' : 'site_refused';
  }
  if (options.out === undefined)
    throw usageError(
      'evals publish needs --out SITE (the site folder to write), or --verify SITE to check one (nothing was done)',
      {
        code: 'required_option_missing',
        component: '--out',
        expected: '--out SITE or --verify SITE',
        received: 'neither',
      },
    );
  const { checkedThreads, publishSite } = await import('@paperclip-evals/app/site/publish');
  const site = options.out;
  // Said after child-cleanup removed the staging folder, before the process exits 130 / 143.
  const progress = siteProgress('publishing into', site, !options.json);
  const releaseNotice = noticeOnStop((signal) => {
    progress.stop();
    printLines('stderr', [
      `evals: interrupted (${signal}): publication into ${site} stopped; the campaign folder being written (its staging folder under campaigns/) was removed (cleaned up); campaign folders published before it stay, and the root files were not rewritten: publish again to finish`,
    ]);
  });
  const result = await publishSite({
    ...(options.threads === undefined ? {} : { threads: checkedThreads(options.threads, '--threads') }),
    out: options.out,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.campaign === undefined ? {} : { campaign: options.campaign }),
    ...(options.as === undefined ? {} : { as: options.as }),
    public: options.public,
    onStaging: (sweep) => {
      printLines('stderr', [
        ...sweep.removed.map(
          ({ folder, pid }) =>
            `evals: removed ${folder}: the staging folder of a publication that did not finish (its publisher, pid ${pid}, is gone)`,
        ),
        ...sweep.kept.map(({ folder, why }) => `evals: left ${folder} as it is: ${why}`),
      ]);
    },
    ...(options.json
      ? {}
      : {
          onCampaign: (campaign) => {
            progress.campaignDone();
            printLines('stderr', [
              `evals: ${campaign.folder}: ${campaign.outcome} (${campaign.files} files, ${campaign.kind}, ${campaign.completeness})`,
            ]);
          },
        }),
  }).finally(() => {
    progress.stop();
    releaseNotice();
  });
  if (options.json) printJson(result);
  else
    printLines('stdout', [
      `${result.site}: ${result.campaigns.filter((campaign) => campaign.outcome === 'published').length} campaign folder(s) published, ${result.campaigns.filter((campaign) => campaign.outcome === 'unchanged').length} unchanged · ${result.listed} listed${result.public ? ' · public projection' : ''}`,
      ...result.skipped.map((skipped) =>
        skipped.reason === 'only_foreign'
          ? `  skipped ${skipped.campaignId}: its ${skipped.foreign} attempt(s) are all foreign (kept apart at ingest with --keep-foreign), counted in no report: no folder`
          : `  skipped ${skipped.campaignId}: no attempt in the ledger, only ${skipped.unsettledTries} ${skipped.unsettledTries === 1 ? 'try' : 'tries'} started and never settled (unknown spend, no result): no folder until it has attempts`,
      ),
      `  latest: ${result.latest ?? 'none'} · latest green: ${result.latestGreen ?? 'none'}`,
      `  check it before uploading: ${shellCommand(['evals', 'publish', '--verify', result.site])}`,
    ]);
  return 'ok';
}

export async function runView(options: { readonly site: string; readonly port?: string }): Promise<Outcome> {
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!/^[0-9]{1,5}$/.test(options.port ?? '0') || port > 65535)
    throw usageError(
      `--port takes a port from 0 to 65535 (0, or no --port: any free one), received ${JSON.stringify(options.port)}`,
      {
        code: 'option_value_invalid',
        component: '--port',
        expected: 'a whole number from 0 to 65535',
        received: options.port,
      },
    );
  const { serveSite } = await import('@paperclip-evals/app/site/serve');
  const served = await serveSite({ site: options.site, port });
  printLines('stdout', [served.url]);
  printLines('stderr', [
    `evals: serving ${options.site} on ${served.url} (loopback only, read-only); Ctrl-C stops`,
  ]);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await served.close();
  return 'ok';
}
