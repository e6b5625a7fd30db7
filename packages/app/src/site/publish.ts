// `evals publish`: the workflow behind the static site (issue 19). For each campaign asked for (one
// with --campaign, else every run the store holds, in the order runs reached it), the store is read
// once (evalbook's writeCampaignPages) and each page written as it is rendered (one synchronous
// write per page, hashed from the bytes written, never held after) into a temporary
// sibling folder (`campaigns/.publishing-…`), then the folder is renamed into place: a reader sees no
// folder or the whole one. A campaign folder is immutable: when its folder is there already, the
// new bytes must be the old bytes (the manifests are equal and the folder still matches its
// manifest) — then nothing changes — or the publication is refused (paperclip_app_site_conflict)
// and nothing is changed. Only then are the root files (index.html, history.json, latest.json,
// latest-green.json) rewritten, each atomically (node's writeOutputFile), from every campaign.json
// in the site. The publisher never deletes anything but its own temporary folder.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

import { jsonText } from '@paperclip-evals/contract';
import {
  SITE_CAMPAIGN_V1,
  buildHistory,
  campaignFolder,
  currentCampaigns,
  latestOf,
  renderSiteIndex,
  writeCampaignPages,
} from '@paperclip-evals/evalbook';
import { writeOutputFile } from '@paperclip-evals/node';

import type { Issue } from '@paperclip-evals/contract';
import type { SiteCampaign, SiteHistory } from '@paperclip-evals/evalbook';

import { AppError } from '../errors.js';
import { withEvalbook } from '../evalbook.js';
import { CAMPAIGNS, MANIFEST, ROOT_FILES, manifestText } from './site-files.js';
import { checkCampaignFolder } from './verify.js';

import type { ManifestEntry } from './site-files.js';

export const PUBLISH_V1 = 'paperclip-evals/publish/v1';

export interface PublishRequest {
  /** `sqlite:PATH` or `postgres://…`; default: the environment's store, else the default store. */
  readonly store?: string;
  readonly env?: string;
  /** The site folder (created when missing, in a folder that exists). */
  readonly out: string;
  /** Only this campaign (default: every run in the store). */
  readonly campaign?: string;
  /** Write the public projection (a closed allowlist). */
  readonly public?: boolean;
  /** Told after each campaign folder. */
  readonly onCampaign?: (outcome: PublishedCampaign) => void;
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

/** What `evals publish --json` prints (schemas/evals/publish-v1.schema.json). */
export interface PublishResult {
  readonly schema: typeof PUBLISH_V1;
  readonly site: string;
  readonly public: boolean;
  readonly campaigns: readonly PublishedCampaign[];
  readonly listed: number;
  readonly latest: string | null;
  readonly latestGreen: string | null;
}

export async function publishSite(request: PublishRequest): Promise<PublishResult> {
  const site = resolve(request.out);
  const isPublic = request.public === true;
  const published: PublishedCampaign[] = [];
  // The store first: one it cannot read (missing, not migrated, unreachable) leaves no site folder behind.
  await withEvalbook(request, 'read', async ({ store, environment }) => {
    await prepareSite(request.out, site);
    await assertSiteMode(site, isPublic);
    // Each campaign's current record: a resumed campaign's newest (its earlier ones stay in the ledger).
    const records = new Map(
      currentCampaigns(await store.campaigns()).map((entry) => [entry.campaignId, entry.record]),
    );
    const ids =
      request.campaign === undefined ? (await store.runs()).map((run) => run.runId) : [request.campaign];
    for (const campaignId of ids) {
      const outcome = await publishCampaign(site, campaignId, async (emit) =>
        writeCampaignPages({
          store,
          campaignId,
          record: records.get(campaignId) ?? null,
          public: isPublic,
          ...(environment === undefined ? {} : { environment }),
          emit,
        }),
      );
      published.push(outcome);
      request.onCampaign?.(outcome);
    }
  });
  const history = await writeRoot(site);
  return {
    schema: PUBLISH_V1,
    site: request.out,
    public: isPublic,
    campaigns: published,
    listed: history.campaigns.length + history.rerenders.length,
    latest: history.latest,
    latestGreen: history.latestGreen,
  };
}

/** The site folder: made when missing (its parent must exist); a symlink or a file is refused. */
async function prepareSite(path: string, site: string): Promise<void> {
  const stat = await lstat(site).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  });
  if (stat === null) {
    await mkdir(site).catch((error: unknown) => {
      throw siteRefused(
        path,
        'site_folder_missing',
        `the folder ${dirname(path)} is not there`,
        'an existing parent folder',
        (error as NodeJS.ErrnoException).code ?? 'unwritable',
      );
    });
    await mkdir(join(site, CAMPAIGNS));
    return;
  }
  if (stat.isSymbolicLink() || !stat.isDirectory())
    throw siteRefused(
      path,
      'site_not_a_folder',
      `${path} is not a folder`,
      'a site folder (or a path that does not exist yet)',
      stat.isSymbolicLink() ? 'a symbolic link' : 'a file',
    );
  await mkdir(join(site, CAMPAIGNS)).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  const campaigns = await lstat(join(site, CAMPAIGNS));
  if (campaigns.isSymbolicLink() || !campaigns.isDirectory())
    throw siteRefused(
      path,
      'site_not_a_folder',
      `${join(path, CAMPAIGNS)} is not a folder`,
      'a folder',
      'something else',
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

async function publishCampaign(
  site: string,
  campaignId: string,
  render: (emit: Emit) => Promise<SiteCampaign>,
): Promise<PublishedCampaign> {
  const folder = campaignFolder(campaignId);
  const final = join(site, folder);
  const temporary = join(site, CAMPAIGNS, `.publishing-${randomBytes(6).toString('hex')}`);
  await mkdir(temporary);
  try {
    const files: ManifestEntry[] = [];
    // A campaign folder has a few subfolders (attempts/, tests/): each made once, not per page.
    const made = new Set<string>([temporary]);
    // Each page is written as it is rendered, in ONE synchronous call (open, write, close: no
    // per-page mkdir, no pool of pending writes holding pages), and hashed and sized from the very
    // bytes written; nothing keeps the page once it is on disk, so memory stays flat whatever the
    // campaign's size (100,000 pages are 100,000 writes, issue 19).
    const emit: Emit = (path, content) => {
      const at = join(temporary, path);
      const parent = dirname(at);
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      writeFileSync(at, bytes, { flag: 'wx' });
      files.push({
        path,
        sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        size: bytes.length,
      });
      return Promise.resolve();
    };
    const campaign = await render(emit);
    const manifest = manifestText(campaignId, files);
    await writeFile(join(temporary, MANIFEST), manifest, { flag: 'wx' });
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
    await rm(temporary, { recursive: true, force: true });
  }
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
  throw new AppError(
    'paperclip_app_site_conflict',
    `campaign folder ${folder} is already published with other bytes: a campaign folder is immutable, so nothing was changed (publish under a new campaign id, e.g. <id>-report-<n>, or into another site)`,
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
  for (const name of ROOT_FILES) await writeOutputFile(join(site, name), (write) => write(files[name]));
  return history;
}
