// Where `pnpm demo` (scripts/demo.ts) keeps what it makes: one folder per campaign under the
// git-ignored .evalbook/demo/, holding the release it built beside the records that point to it
// (the qualification record names the release folder, the campaign record its digests), so a user
// can re-run the campaign, qualify again or publish from it after the demo ends. Nothing is removed.
import { join } from 'node:path';

export interface DemoPaths {
  /** .evalbook/demo/<campaign>/: everything below is kept. */
  readonly keptDir: string;
  /** The runner release the demo builds and qualifies (tarball, paperclip-runnerd, SHA256SUMS). */
  readonly releaseDir: string;
  readonly environment: string;
  readonly qualification: string;
  readonly storeUrl: string;
  readonly campaignRecord: string;
  readonly campaignWorkDir: string;
}

export function demoPaths(root: string, campaignId: string): DemoPaths {
  const keptDir = join(root, '.evalbook', 'demo', campaignId);
  return {
    keptDir,
    releaseDir: join(keptDir, 'release'),
    environment: join(keptDir, 'evalbook.yaml'),
    qualification: join(keptDir, 'qualification.json'),
    storeUrl: `sqlite:${join(keptDir, 'evalbook.sqlite')}`,
    campaignRecord: join(keptDir, 'campaign.json'),
    campaignWorkDir: join(keptDir, 'campaign'),
  };
}
