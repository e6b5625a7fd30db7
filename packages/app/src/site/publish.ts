// `evals publish`: the workflow behind the static site (issue 19). For each campaign asked for (one
// with --campaign, else every run the store holds, in the order runs reached it — but a campaign with
// no attempt, only tries started and never settled, which has nothing to show: skipped and said, or
// refused when named, so no immutable empty folder stands in for it), the store is read
// once (evalbook's writeCampaignPages) and each page written as it is rendered (one synchronous
// write per page, hashed from the bytes written, never held after: folder-writer.ts) into a temporary
// sibling folder (`campaigns/.publishing-…`: staging.ts, removed on SIGINT/SIGTERM, swept by the next publication once its publisher is gone), then the folder is renamed into place: a reader sees no
// folder or the whole one. The attempt pages are rendered on several threads when the machine has
// the cores (publish-workers.ts; --threads), with the same bytes as on one; a worker's error fails
// the campaign like this thread's own, and its temporary folder is removed once no worker runs. A campaign folder is immutable: when its folder is there already, the
// new bytes must be the old bytes (the manifests are equal and the folder still matches its
// manifest) — then nothing changes — or that campaign is refused and its folder left as it is, while
// every other campaign is published; the refusals are one paperclip_app_site_conflict once the root
// files are written, each naming the campaign, what differs and the command that publishes the
// revision (a re-render under `<id>-report-<n>`, `--as`). The pages come from the ledger alone: the
// environment (--env) only says where the store is. Nothing is written before every check that can
// be made up front passed (the campaign is in the store, the folder is a site or empty, the site's
// mode), and a failure removes the site folders this publication created. Only then are the root files (index.html, history.json, latest.json,
// latest-green.json) rewritten, each atomically (node's writeOutputFile), from every campaign.json
// in the site. The publisher never deletes anything but its own temporary folder and the staging
// folders of publishers that are gone (staging.ts).
import { lstat, mkdir, readFile, readdir, rename, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

import { jsonText, shellCommand } from '@paperclip-evals/contract';
import {
  SITE_CAMPAIGN_V1,
  buildHistory,
  campaignFolder,
  currentCampaigns,
  latestOf,
  refreshOf,
  renderSiteIndex,
  writeCampaignPages,
} from '@paperclip-evals/evalbook';
import { fullDiskError, writeOutputFile } from '@paperclip-evals/node';

import type { Issue } from '@paperclip-evals/contract';
import type { LedgerStore, RunCounts, SiteCampaign, SiteHistory } from '@paperclip-evals/evalbook';

import { AppError } from '../errors.js';
import { withEvalbook } from '../evalbook.js';
import { FOLDER_LEFT, FolderWriter } from './folder-writer.js';
import { campaignThreads, startPageWorkers } from './publish-workers.js';
import { CAMPAIGNS, MANIFEST, ROOT_FILES, manifestText } from './site-files.js';
import { openStaging, sweepStaging } from './staging.js';
import { checkCampaignFolder } from './verify.js';

import type { PageWorkerData } from './publish-workers.js';
import type { ManifestEntry } from './site-files.js';
import type { StagingSweep } from './staging.js';

export const PUBLISH_V1 = 'paperclip-evals/publish/v1';
export { checkedThreads } from './publish-workers.js';

export interface PublishRequest {
  /** `sqlite:PATH` or `postgres://…`; default: the environment's store, else the default store. */
  readonly store?: string;
  readonly env?: string;
  /** The site folder (created when missing, in a folder that exists). */
  readonly out: string;
  /** Only this campaign (default: every run in the store). */
  readonly campaign?: string;
  /**
   * Publish `campaign` under this id instead: a re-render `<campaign>-report-<n>` (upstream's report
   * refresh), how a campaign changed since its publication (a retraction, a late attempt) is published.
   */
  readonly as?: string;
  /** Write the public projection (a closed allowlist). */
  readonly public?: boolean;
  /**
   * How many threads render a campaign's attempt pages, this one included (1: this thread only);
   * default EVALS_PUBLISH_THREADS, else os.availableParallelism() up to 4 (publish-workers.ts).
   * The folder's bytes are the same whatever the count.
   */
  readonly threads?: number;
  /** Told after each campaign folder. */
  readonly onCampaign?: (outcome: PublishedCampaign) => void;
  /** Told, before any campaign, of the staging folders of gone publishers removed and of those kept (staging.ts). */
  readonly onStaging?: (sweep: StagingSweep) => void;
}

export interface PublishedCampaign {
  readonly campaignId: string;
  readonly folder: string;
  /** published: its folder was written now · unchanged: already there with the same bytes. */
  readonly outcome: 'published' | 'unchanged';
  readonly files: number;
  readonly kind: SiteCampaign['kind'];
  readonly completeness: SiteCampaign['completeness'];
}

/**
 * A campaign the store lists that has nothing to publish: no attempt in the ledger, only tries
 * started and never settled (a run killed mid-session, a session still running elsewhere). Its spend
 * is unknown and it has no result; an empty folder would be immutable, so it gets none until it has.
 */
export interface SkippedCampaign {
  readonly campaignId: string;
  /**
   * no_attempt: the ledger holds none, only tries started and never settled. only_foreign: every
   * attempt was kept apart at ingest (--keep-foreign): they count in no report, so nothing is left.
   */
  readonly reason: 'no_attempt' | 'only_foreign';
  /** Its tries the ledger holds a start of and no attempt (`evals runs`: spend.unsettledTries). */
  readonly unsettledTries: number;
  /** Its attempts kept apart as foreign (0 for no_attempt). */
  readonly foreign: number;
}

/** What `evals publish --json` prints (schemas/evals/publish-v1.schema.json). */
export interface PublishResult {
  readonly schema: typeof PUBLISH_V1;
  readonly site: string;
  readonly public: boolean;
  readonly campaigns: readonly PublishedCampaign[];
  /** The store's campaigns with no attempt (only unsettled try starts): no folder, said why. */
  readonly skipped: readonly SkippedCampaign[];
  readonly listed: number;
  readonly latest: string | null;
  readonly latestGreen: string | null;
}

export async function publishSite(request: PublishRequest): Promise<PublishResult> {
  const site = resolve(request.out);
  const isPublic = request.public === true;
  const published: PublishedCampaign[] = [];
  const skipped: SkippedCampaign[] = [];
  const refused: Refusal[] = [];
  assertAs(request);
  // The store first: one it cannot read (missing, not migrated, unreachable) leaves no site folder behind.
  // The environment (--env) only names the store: no page depends on it (docs/publishing.md).
  await withEvalbook(request, 'read', async ({ store, storeShown, locatorToOpen }) => {
    await assertSiteFolder(request.out, site);
    await assertSiteMode(site, isPublic);
    // Every run the store lists, but a campaign with no attempt (only tries started, never settled)
    // or only foreign ones (kept apart at ingest: they count nowhere) has nothing to show: it is
    // skipped, and said (named with --campaign: refused, nothing written).
    let ids: string[];
    if (request.campaign === undefined) {
      const runs = await store.runs();
      for (const run of runs) {
        const reason = nothingToShow(run);
        if (reason === null) continue;
        skipped.push({
          campaignId: run.runId,
          reason,
          unsettledTries: run.spend.unsettledTries,
          foreign: run.foreign,
        });
      }
      ids = runs.filter((run) => nothingToShow(run) === null).map((run) => run.runId);
    } else {
      await assertHasAttempts(store, request.campaign);
      ids = [request.campaign];
    }
    const created = await prepareSite(request.out, site);
    try {
      // What a stopped publication left (its publisher gone) is removed first; a live one's stays.
      const sweep = await sweepStaging(site);
      if (sweep.removed.length + sweep.kept.length > 0) request.onStaging?.(sweep);
      // Each campaign's current record: a resumed campaign's newest (its earlier ones stay in the ledger).
      const records = new Map(
        currentCampaigns(await store.campaigns()).map((entry) => [entry.campaignId, entry.record]),
      );
      const render = async (campaignId: string, siteId: string): Promise<PublishedCampaign> => {
        // What a page worker renders its pages from: the same ledger, record and ids as this thread.
        const share: PageShare = {
          storeUrl: locatorToOpen,
          campaignId,
          record: records.get(campaignId) ?? null,
          public: isPublic,
          ...(siteId === campaignId ? {} : { siteId }),
        };
        const threads = await campaignThreads(store, campaignId, request.threads);
        return publishCampaign(site, siteId, share, threads, async (emit, claimPage) =>
          writeCampaignPages({
            ...share,
            store,
            emit,
            ...(claimPage === undefined ? {} : { claimPage }),
          }),
        );
      };
      for (const campaignId of ids) {
        const siteId = request.as ?? campaignId;
        try {
          const outcome = await render(campaignId, siteId);
          published.push(outcome);
          request.onCampaign?.(outcome);
        } catch (error) {
          if (!isSiteConflict(error)) throw error;
          // Its revision published already (`--as`, the newest <id>-report-<n>) with these very
          // bytes: nothing to refuse, the site holds the campaign as the ledger has it now.
          const revision = request.as === undefined ? await newestRevision(site, campaignId) : null;
          const superseded =
            revision === null
              ? null
              : await render(campaignId, revision).catch((again: unknown) => {
                  if (isSiteConflict(again)) return null;
                  throw again;
                });
          if (superseded !== null) {
            published.push(superseded);
            request.onCampaign?.(superseded);
          } else refused.push({ campaignId, siteId, issues: error.issues });
        }
      }
    } catch (error) {
      await removeCreated(created);
      throw error;
    }
    if (refused.length > 0) {
      await writeRoot(site);
      throw await conflictError(site, request, storeShown, published, refused);
    }
  });
  const history = await writeRoot(site);
  return {
    schema: PUBLISH_V1,
    site: request.out,
    public: isPublic,
    campaigns: published,
    skipped,
    listed: history.campaigns.length + history.rerenders.length,
    latest: history.latest,
    latestGreen: history.latestGreen,
  };
}

/** Why a run the store lists gets no folder (SkippedCampaign), or null when it has something to show. */
function nothingToShow(run: RunCounts): SkippedCampaign['reason'] | null {
  if (run.attempts === 0) return 'no_attempt';
  // Kept apart at ingest, every one: no report counts them, and an empty folder is immutable.
  if (run.foreign === run.attempts) return 'only_foreign';
  return null;
}

/**
 * `--campaign ID` of a campaign whose only tries are unsettled starts, or whose every attempt is
 * foreign: refused before anything is written (a campaign with neither attempt nor start is
 * writeCampaignPages's campaign_unknown).
 */
async function assertHasAttempts(store: LedgerStore, campaignId: string): Promise<void> {
  const run = (await store.runs()).find((entry) => entry.runId === campaignId);
  if (run !== undefined && run.attempts > 0 && nothingToShow(run) === 'only_foreign')
    throw new AppError(
      'paperclip_app_input_invalid',
      `campaign ${JSON.stringify(campaignId)} holds only foreign attempts (${run.foreign}, kept apart at ingest with --keep-foreign: their case or config is not the environment's), which count in no report: it has no result to publish (nothing was written); ingest its attempts with the environment they were run with`,
      [
        {
          code: 'campaign_only_foreign',
          message: `every attempt of ${JSON.stringify(campaignId)} is foreign`,
          component: '--campaign',
          expected: 'a campaign with at least one attempt of the environment it was ingested with',
          received: `${run.attempts} attempts, all foreign`,
        },
      ],
    );
  if ((await store.countAttempts(campaignId)) > 0) return;
  const unsettled = (await store.campaignTries(campaignId)).filter((entry) => !entry.settled).length;
  if (unsettled === 0) return;
  const tries = `${unsettled} ${unsettled === 1 ? 'try' : 'tries'}`;
  throw new AppError(
    'paperclip_app_input_invalid',
    `campaign ${JSON.stringify(campaignId)} has no attempt in the ledger, only ${tries} started and never settled (a run killed mid-session, or a session still running elsewhere): its spend is unknown and it has no result to publish (nothing was written); publish it once it has results (evals runs lists it)`,
    [
      {
        code: 'campaign_has_no_attempt',
        message: `no attempt with runId ${JSON.stringify(campaignId)}; ${tries} started, never settled`,
        component: '--campaign',
        expected: 'a campaign with at least one attempt in the ledger',
        received: `0 attempts, ${tries} started and never settled`,
      },
    ],
  );
}

/**
 * The site folder: made when missing (its parent must exist); a symlink or a file is refused.
 * Returns the folders it made, innermost first (what a failed publication removes again).
 */
async function prepareSite(path: string, site: string): Promise<string[]> {
  const stat = await lstat(site).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  });
  if (stat === null) {
    await mkdir(site).catch(async (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code ?? 'unwritable';
      const parent = dirname(path);
      // ENOENT is a missing parent only when the parent is not there: a file system that makes no
      // folders (/proc, /sys) answers ENOENT too.
      const parentThere = await lstat(dirname(site)).then(
        (stats) => stats.isDirectory(),
        () => false,
      );
      if (code === 'ENOENT' && !parentThere)
        throw siteRefused(
          path,
          'site_folder_missing',
          `the folder ${parent} is not there: make it first (mkdir -p ${shellCommand([parent])}) or name an --out in a folder that exists`,
          'an existing parent folder',
          code,
        );
      throw siteRefused(
        path,
        'site_folder_unwritable',
        code === 'ENOENT'
          ? `cannot make a folder in ${parent}: it is there, but its file system refused it (ENOENT; a virtual one such as /proc or /sys makes none): name an --out on a writable file system`
          : `cannot make a folder in ${parent} (${code}): name an --out in a folder you can write`,
        'a parent folder Evals can make a folder in',
        code,
      );
    });
    await mkdir(join(site, CAMPAIGNS));
    return [join(site, CAMPAIGNS), site];
  }
  if (stat.isSymbolicLink() || !stat.isDirectory())
    throw siteRefused(
      path,
      'site_not_a_folder',
      `${path} is not a folder`,
      'a site folder (or a path that does not exist yet)',
      stat.isSymbolicLink() ? 'a symbolic link' : 'a file',
    );
  const made = await mkdir(join(site, CAMPAIGNS)).then(
    () => true,
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return false;
    },
  );
  const campaigns = await lstat(join(site, CAMPAIGNS));
  if (campaigns.isSymbolicLink() || !campaigns.isDirectory())
    throw siteRefused(
      path,
      'site_not_a_folder',
      `${join(path, CAMPAIGNS)} is not a folder`,
      'a folder',
      'something else',
    );
  return made ? [join(site, CAMPAIGNS)] : [];
}

/**
 * Removes the folders this publication made, innermost first, each only while empty (rmdir): what
 * anyone else put there meanwhile stays. Never throws over the failure being reported.
 */
async function removeCreated(created: readonly string[]): Promise<void> {
  for (const folder of created) await rmdir(folder).catch(() => undefined);
}

/**
 * The out folder is refused when it holds anything a site does not (a site is its root files and
 * campaigns/): publishing into some other folder would give a site that fails its own --verify
 * (site_unknown_path). A missing or empty folder is fine. Checked before anything is written.
 */
async function assertSiteFolder(path: string, site: string): Promise<void> {
  const stat = await lstat(site).catch(() => null);
  if (stat === null || stat.isSymbolicLink() || !stat.isDirectory()) return; // prepareSite says why
  const known = new Set<string>([...ROOT_FILES, CAMPAIGNS]);
  const foreign = (await readdir(site)).filter((name) => !known.has(name)).sort();
  if (foreign.length === 0) return;
  throw siteRefused(
    path,
    'site_folder_foreign',
    `${path} is a folder that is not a site: it holds ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}, and a site holds only ${ROOT_FILES.join(', ')} and ${CAMPAIGNS}/; nothing was written (publish into a new or empty folder, or into a site evals publish wrote)`,
    `a new or empty folder, or a site (${ROOT_FILES.join(', ')}, ${CAMPAIGNS}/)`,
    `a folder holding ${foreign.length} other entr${foreign.length === 1 ? 'y' : 'ies'} (${foreign.slice(0, 5).join(', ')})`,
  );
}

/** `--as` needs `--campaign` and is that campaign's re-render id, `<campaign>-report-<n>`. */
function assertAs(request: PublishRequest): void {
  if (request.as === undefined) return;
  if (request.campaign !== undefined && refreshOf(request.as) === request.campaign) return;
  throw new AppError(
    'paperclip_app_request_invalid',
    request.campaign === undefined
      ? '--as needs --campaign: it publishes that one campaign under another id'
      : `--as ${request.as} is not a re-render id of ${request.campaign}: use ${request.campaign}-report-<n>`,
    [
      {
        code: 'site_rerender_id_invalid',
        message: 'a re-render is published as <campaign>-report-<n>',
        component: '--as',
        expected: `${request.campaign ?? '<campaign>'}-report-<n> (with --campaign)`,
        received: request.as,
      },
    ],
  );
}

function siteRefused(
  path: string,
  code: string,
  message: string,
  expected: string,
  received: string,
): AppError {
  return new AppError('paperclip_app_request_invalid', `cannot publish into ${path}: ${message}`, [
    { code, message, path, expected, received },
  ]);
}

/** A site is all public or all private: publishing the other kind into it is refused. */
async function assertSiteMode(site: string, isPublic: boolean): Promise<void> {
  for (const campaign of await siteCampaigns(site))
    if (campaign.public !== isPublic)
      throw new AppError(
        'paperclip_app_request_invalid',
        `the site holds ${campaign.public ? 'public' : 'private'} campaigns (${campaign.campaignId}): publish ${campaign.public ? 'with' : 'without'} --public, or into another folder`,
        [
          {
            code: 'site_mode_mismatch',
            message: 'a site is all public projections or all private pages',
            path: campaign.folder,
            expected: campaign.public ? 'public' : 'private',
            received: isPublic ? 'public' : 'private',
          },
        ],
      );
}

/** Every campaign.json of the site (folders that are not campaigns are verify's to report). */
async function siteCampaigns(site: string): Promise<SiteCampaign[]> {
  const folders = (await readdir(join(site, CAMPAIGNS)).catch(() => [] as string[]))
    .filter((name) => !name.startsWith('.'))
    .sort();
  const campaigns: SiteCampaign[] = [];
  for (const name of folders) {
    const text = await readFile(join(site, CAMPAIGNS, name, 'campaign.json'), 'utf8').catch(() => null);
    if (text === null) continue;
    const value = JSON.parse(text) as { readonly schema?: unknown };
    if (value.schema === SITE_CAMPAIGN_V1) campaigns.push(value as SiteCampaign);
  }
  return campaigns;
}

type Emit = (path: string, content: string | Uint8Array) => Promise<void>;
type PageShare = Omit<PageWorkerData, 'folder' | 'counter'>;

/** Publishes one campaign folder, `campaigns/<siteId>/`, on `threads` threads (this one included). */
async function publishCampaign(
  site: string,
  campaignId: string,
  share: PageShare,
  threads: number,
  render: (emit: Emit, claimPage?: () => number) => Promise<SiteCampaign>,
): Promise<PublishedCampaign> {
  const folder = campaignFolder(campaignId);
  const final = join(site, folder);
  // Named for this process and removed on SIGINT/SIGTERM too (staging.ts).
  const staging = await openStaging(site);
  const temporary = staging.path;
  try {
    // Each page is written as it is rendered, in one synchronous write (folder-writer.ts).
    const writer = new FolderWriter(temporary);
    const emit: Emit = (path, content) => {
      writer.write(path, content);
      return Promise.resolve();
    };
    let campaign: SiteCampaign;
    if (threads === 1) campaign = await render(emit);
    else {
      // The other threads take pages of the stream from the same counter (publish-workers.ts).
      const counter = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
      const claims = new Int32Array(counter);
      const workers = startPageWorkers(threads - 1, { ...share, folder: temporary, counter });
      try {
        campaign = await render(emit, () => {
          workers.check();
          return Atomics.add(claims, 0, 1);
        });
        for (const batch of await workers.entries) writer.entries.append(batch);
      } finally {
        // Whatever happened, no worker writes into the folder once this returns (it is removed below).
        await workers.stop();
      }
    }
    const files = writer.entries.toEntries();
    assertEveryAttemptPage(campaign, files);
    const manifest = manifestText(campaignId, files);
    const manifestPath = join(temporary, MANIFEST);
    // A full disk here is the folder writer's coded error too (the temporary folder is removed below).
    await writeFile(manifestPath, manifest, { flag: 'wx' }).catch((error: unknown) => {
      throw fullDiskError(manifestPath, error, temporary, FOLDER_LEFT) ?? error;
    });
    const summary = {
      campaignId,
      folder,
      files: files.length + 1,
      kind: campaign.kind,
      completeness: campaign.completeness,
    };
    if (await exists(final)) {
      await assertSameFolder(folder, final, manifest);
      return { ...summary, outcome: 'unchanged' };
    }
    await rename(temporary, final).catch(async (error: unknown) => {
      // Someone else put the folder there meanwhile: it must be these very bytes.
      if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      await assertSameFolder(folder, final, manifest);
    });
    return { ...summary, outcome: 'published' };
  } finally {
    await staging.close();
  }
}

/**
 * The folder holds one page per counted attempt, no more, no less: threads that read the store at
 * different moments while attempts of the campaign were being added could disagree (a page missing,
 * or one for an attempt the summary did not count). Then nothing is published.
 */
function assertEveryAttemptPage(campaign: SiteCampaign, files: readonly ManifestEntry[]): void {
  const pages = files.filter((entry) => entry.path.startsWith('attempts/')).length;
  if (pages === campaign.attempts) return;
  throw new AppError(
    'paperclip_app_input_invalid',
    `campaign ${campaign.campaignId} changed while it was published (${campaign.attempts} attempts counted, ${pages} attempt pages written): nothing was published; publish it again once its attempts are all ingested`,
    [
      {
        code: 'campaign_changed_while_publishing',
        message: 'attempts of the campaign were added while it was read',
        path: campaign.folder,
        expected: `${campaign.attempts} attempt pages`,
        received: `${pages}`,
      },
    ],
  );
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    },
  );
}

/** A campaign whose folder is published with other bytes: refused, its folder left as it is. */
const isSiteConflict = (error: unknown): error is AppError =>
  error instanceof AppError && error.code === 'paperclip_app_site_conflict';

interface Refusal {
  readonly campaignId: string;
  readonly siteId: string;
  readonly issues: readonly Issue[];
}

/** The newest `<id>-report-<n>` the site holds (the highest n), or null. */
async function newestRevision(site: string, campaignId: string): Promise<string | null> {
  let newest: string | null = null;
  for (let n = 1; await exists(join(site, campaignFolder(`${campaignId}-report-${n}`))); n++)
    newest = `${campaignId}-report-${n}`;
  return newest;
}

/** The first `<id>-report-<n>` with no folder in the site: the revision's id. */
async function nextRevision(site: string, campaignId: string): Promise<string> {
  for (let n = 1; ; n++) {
    const id = `${campaignId}-report-${n}`;
    if (!(await exists(join(site, campaignFolder(id))))) return id;
  }
}

/** Every refused campaign, after the others were published: one coded error naming each and the command. */
async function conflictError(
  site: string,
  request: PublishRequest,
  store: string,
  published: readonly PublishedCampaign[],
  refused: readonly Refusal[],
): Promise<AppError> {
  const issues: Issue[] = [];
  const commands: string[] = [];
  for (const refusal of refused) {
    const revision = await nextRevision(site, refusal.campaignId);
    const command = shellCommand([
      'evals',
      'publish',
      '--store',
      store,
      '--campaign',
      refusal.campaignId,
      '--as',
      revision,
      '--out',
      request.out,
      ...(request.public === true ? ['--public'] : []),
    ]);
    commands.push(command);
    for (const issue of refusal.issues)
      issues.push({
        ...issue,
        message: `campaign ${refusal.siteId}: ${issue.message}; to publish it as it is now, as a re-render: ${command}`,
      });
  }
  const done = published.filter((entry) => entry.outcome === 'published').length;
  return new AppError(
    'paperclip_app_site_conflict',
    `${refused.length} campaign folder(s) already published with other bytes (${refused.map((entry) => entry.siteId).join(', ')}): a campaign folder is immutable, so ${refused.length === 1 ? 'it was' : 'they were'} left as published; ${done} other campaign folder(s) published, ${published.length - done} unchanged, and the root files written. Publish the revision as a re-render: ${commands.join(' ; ')}`,
    issues,
  );
}

/** The folder there already must be exactly the one just rendered: else refused, nothing changed. */
async function assertSameFolder(folder: string, final: string, manifest: string): Promise<void> {
  const held = await readFile(join(final, MANIFEST), 'utf8').catch(() => null);
  const issues: Issue[] = [];
  if (held !== manifest) {
    const before = held === null ? [] : ((JSON.parse(held) as { files?: ManifestEntry[] }).files ?? []);
    const after = (JSON.parse(manifest) as { files: ManifestEntry[] }).files;
    const old = new Map(before.map((entry) => [entry.path, entry.sha256]));
    const now = new Map(after.map((entry) => [entry.path, entry.sha256]));
    const differing = [...new Set([...old.keys(), ...now.keys()])]
      .filter((path) => old.get(path) !== now.get(path))
      .sort();
    issues.push({
      code: 'campaign_folder_differs',
      message: `${folder} is published with other bytes: ${differing.length} file(s) differ (${differing.slice(0, 5).join(', ')}${differing.length > 5 ? ', …' : ''})${held === null ? '; it has no bundle-manifest.json' : ''}`,
      path: folder,
      expected:
        held === null
          ? 'a campaign folder with its manifest'
          : `the published manifest (${differing.length} file(s) differ)`,
      received: 'the campaign as the store renders it now',
    });
  } else issues.push(...(await checkCampaignFolder(final, folder)));
  if (issues.length === 0) return;
  // Caught by publishSite, which refuses this campaign alone and publishes the others.
  throw new AppError(
    'paperclip_app_site_conflict',
    `campaign folder ${folder} is already published with other bytes`,
    issues,
  );
}

/** Rewrites the root files from every campaign.json in the site, each atomically. */
async function writeRoot(site: string): Promise<SiteHistory> {
  const history = buildHistory(await siteCampaigns(site));
  const files: Record<(typeof ROOT_FILES)[number], string> = {
    'index.html': renderSiteIndex(history),
    'history.json': `${jsonText(history, 2)}\n`,
    'latest.json': `${jsonText(latestOf(history, 'latest'), 2)}\n`,
    'latest-green.json': `${jsonText(latestOf(history, 'latest_green'), 2)}\n`,
  };
  // A root file that already holds these bytes is left as it is (a publication that changes nothing
  // touches nothing); another is replaced atomically.
  for (const name of ROOT_FILES) {
    const held = await readFile(join(site, name), 'utf8').catch(() => null);
    if (held !== files[name]) await writeOutputFile(join(site, name), (write) => write(files[name]));
  }
  return history;
}
