// What a published site is made of, on disk (issue 19): the root's files (the only mutable ones),
// a campaign folder's layout, and its bundle-manifest.json (every file of the folder but the
// manifest itself, with its sha256 and size, sorted by path, as RFC 8785 canonical JSON). Publish
// writes these and verify checks them, from this one description.
import { canonicalize } from '@paperclip-evals/contract';
import { SITE_MANIFEST_V1 } from '@paperclip-evals/evalbook';

/** The root files `evals publish` rewrites (atomically) on every publication; nothing else changes. */
export const ROOT_FILES = ['index.html', 'history.json', 'latest.json', 'latest-green.json'] as const;
/** The folder of campaign folders. */
export const CAMPAIGNS = 'campaigns';
export const MANIFEST = 'bundle-manifest.json';

/** A campaign folder's paths: what verify accepts inside one (the manifest lists them). */
const CAMPAIGN_PATH =
  /^(?:index\.html|campaign\.json|tests\/[a-z0-9_~-]+\.html|attempts\/[a-z0-9_~.-]+\.html)$/;

export function isCampaignPath(path: string): boolean {
  return CAMPAIGN_PATH.test(path) && !path.includes('..');
}

export interface ManifestEntry {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

export interface BundleManifest {
  readonly schema: typeof SITE_MANIFEST_V1;
  readonly campaignId: string;
  readonly files: readonly ManifestEntry[];
}

/** The manifest's bytes: canonical JSON of the entries sorted by path (code unit order). */
export function manifestText(campaignId: string, files: readonly ManifestEntry[]): string {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifest: BundleManifest = { schema: SITE_MANIFEST_V1, campaignId, files: sorted };
  return canonicalize(manifest);
}
