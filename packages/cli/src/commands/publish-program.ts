// The flag tables of `evals publish` and `evals view` (commands/publish.ts does the work).
import type { Command } from 'commander';

import { EXIT } from '../exit-codes.js';
import { PUBLISH_V1 } from '../output-schemas.js';
import { act } from '../run.js';

export function addPublishCommands(program: Command): void {
  program
    .command('publish')
    .summary(
      'write an immutable static site of campaigns (history, grids, case and attempt pages); --verify checks one',
    )
    .description(
      [
        'Write a static site from the Evalbook: SITE/campaigns/<id>/ per campaign (the grid page, a page per case',
        'under tests/, a page per attempt under attempts/, campaign.json, and bundle-manifest.json listing every',
        'file with its sha256 and size), and the root index.html, history.json, latest.json and latest-green.json.',
        'A campaign folder is immutable: written into a temporary folder beside it and renamed into place, and',
        'publishing the same campaign id with other bytes is refused (exit 1) with that folder left as it is, while',
        'every other campaign is published (--as <id>-report-<n> publishes the revision); only the root files are',
        'rewritten (atomically), and nothing is ever deleted. The pages come from the ledger alone (the campaign',
        "record's lanes give each attempt's provider, model and driver, its caseDefinitions each case's prompt and",
        'description), never from --env.',
        'History groups campaigns by the same',
        'lanes (provider, model, driver) and suite fingerprint; partial campaigns and runs without a campaign',
        'record are listed but never trend points or latest green; a re-render (no provider call) is listed apart.',
        'With --public the pages are a closed allowlist: ids, model/config identity, statuses, usage, cost, check',
        'outcomes, tool names and outcomes, scrubbed progress text — never tool inputs or results, session ids,',
        'failure text, traces or case prompts. Every page works from file:// (its CSP forbids network access).',
      ].join(' '),
    )
    .option(
      '--store <url>',
      "the store: sqlite:PATH or postgres://… (default: the environment's store, else sqlite:.evalbook/evalbook.sqlite)",
    )
    .option(
      '--env <file>',
      'the Evalbook environment, for its store only: no page depends on it (pages come from the ledger alone)',
    )
    .option(
      '--out <site>',
      'the site folder: new (in a folder that exists), empty, or a site evals publish wrote; any other folder is refused',
    )
    .option('--campaign <id>', 'publish only this campaign (default: every run in the store)')
    .option(
      '--as <id>',
      'with --campaign: publish it as a re-render <campaign>-report-<n> (how a campaign changed since its publication, by a retraction or a late attempt, is published)',
    )
    .option('--public', 'write the public projection (a closed allowlist of fields)')
    .option(
      '--threads <n>',
      'threads that render attempt pages (or, with --verify, check files), this one included: 1 to 64 (default: $EVALS_PUBLISH_THREADS, else the cores Node may use, at most 4); the site is the same byte for byte whatever the count',
    )
    .option(
      '--verify <site>',
      'check a site instead: every file as its manifest says, the root history.json, latest.json and latest-green.json strict JSON of their schemas and agreeing with each other and the campaign folders, no unknown path, no symlink, no foreign script, no remote resource, no broken link, no credential-shaped value',
    )
    .option(
      '--json',
      `print the result as JSON (${PUBLISH_V1}, or with --verify paperclip-evals/site-verification/v1)`,
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 published (or verified) · 1 a campaign folder is already published with other bytes (that folder',
        'left as it is, every other campaign and the root files published; the error names the --as command that publishes',
        'the revision), or --verify found a defect (each listed with its code) · 2 usage error, a store that cannot be',
        'read, a campaign the store does not hold, an output folder refused (a file, or a folder that is not a site):',
        `a publish that fails for any of these writes nothing · ${EXIT.interrupted}/${EXIT.terminated} stopped by SIGINT/SIGTERM (the campaign`,
        'folder being written, its staging folder campaigns/.publishing-…, removed first; then said on stderr). A',
        'publication first removes the staging folders of publishers that are gone (killed) and says so; --verify',
        'reports one left in a site as one site_staging_leftover issue naming the fix.',
        '',
        'Examples:',
        '  $ evals publish --store sqlite:.evalbook/evalbook.sqlite --out site',
        '  $ evals publish --campaign nightly-42 --out site --public',
        '  $ evals publish --campaign nightly-42 --as nightly-42-report-1 --out site   # a retraction since: the revision',
        '  $ evals publish --campaign nightly-42 --out site --threads 1   # one thread (the same bytes)',
        '  $ evals publish --verify site && aws s3 sync site s3://evals-site   # verify is the gate before any upload',
        '  $ evals view site',
        '',
        'Site layout, immutability, the public allowlist and what matches upstream: docs/publishing.md.',
      ].join('\n'),
    )
    .action(
      act(
        async (flags: {
          store?: string;
          env?: string;
          out?: string;
          campaign?: string;
          as?: string;
          public?: true;
          threads?: string;
          verify?: string;
          json?: true;
        }) => {
          const { runPublish } = await import('./publish.js');
          return runPublish({ ...flags, public: flags.public === true, json: flags.json === true });
        },
        { json: PUBLISH_V1 },
      ),
    );

  program
    .command('view')
    .summary('serve a published site on 127.0.0.1 (read-only) and print its URL')
    .description(
      [
        'Serve a site `evals publish` wrote on loopback only (127.0.0.1), read-only: GET and HEAD, no folder',
        'listing, a path leaving the site (.., an encoded separator) or through a symbolic link refused (403),',
        "content types by extension, and the site's Content-Security-Policy on every response. Ctrl-C stops it.",
      ].join(' '),
    )
    .argument('<site>', 'the site folder')
    .option('--port <n>', 'the port (default: any free one)')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 stopped by Ctrl-C or SIGTERM · 2 not a site folder, a bad --port, or the port is taken.',
        '',
        'Example:',
        '  $ evals view site --port 8080',
      ].join('\n'),
    )
    .action(
      act(async (site: string, flags: { port?: string }) => {
        const { runView } = await import('./publish.js');
        return runView({ site, ...(flags.port === undefined ? {} : { port: flags.port }) });
      }),
    );
}
