// `evals publish`, `evals publish --verify` and `evals view` end to end with the real CLI (issue 19),
// over a SQLite Evalbook holding several campaigns (complete, partial, another suite, a re-render, a
// run without a record): the site and its JSON (by schema), publishing again changes no byte, other
// bytes for a published campaign are refused (exit 1) and nothing changes, verify's exit codes, and
// the loopback server: pages with their content type and CSP, no listing, traversal and symlinks
// refused, stopped by SIGINT. The first publish and publish --verify are the binary, the later ones
// its program in this process (firstRunSpawned); `view` is always a process.
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { SUITE_B, seedCampaigns, snapshotTree } from '@paperclip-evals/test-kit/site-store';

import { firstRunSpawned } from './support/evals-in-process.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;

let dir: string;
let store: string;
let site: string;

/** The first publish and the first publish --verify are the binary, the later runs in-process. */
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(process.execPath, [EVALS, ...args], { encoding: 'utf8', cwd: dir });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
  {},
  (args) => (args.includes('--verify') ? `${args[0] ?? ''} --verify` : (args[0] ?? '')),
);
const evals = async (args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const { status, stdout, stderr } = await run(args);
  return { code: status, stdout, stderr };
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-publish-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  site = join(dir, 'site');
  await seedCampaigns(store, [
    { campaignId: 'nightly-1', minute: 1, cases: { case_a: true, case_b: true } },
    { campaignId: 'nightly-2', minute: 2, cases: { case_a: true, case_b: false } },
    {
      campaignId: 'nightly-3',
      minute: 3,
      record: { complete: false, partial: ['interrupted'] },
      cases: { case_a: true },
    },
    { campaignId: 'suite-b-1', minute: 4, record: { suite: SUITE_B }, cases: { case_a: true } },
    {
      campaignId: 'nightly-2-report-1',
      minute: 5,
      record: { tries: 0 },
      cases: { case_a: true, case_b: false },
    },
    { campaignId: 'adhoc', minute: 6, record: null, cases: { case_a: false } },
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evals publish', () => {
  it('writes the site: every campaign, the history grouped, latest and latest green (--json by its schema)', async () => {
    const result = await evals(['publish', '--store', store, '--out', site, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as {
      campaigns: { outcome: string }[];
      latest: string;
      latestGreen: string;
    };
    expect(schemaErrors(SCHEMA('publish'), printed)).toEqual([]);
    expect(printed.campaigns).toHaveLength(6);
    // The schema can fail: an outcome publish never gives is refused.
    const wrong = { ...printed, campaigns: [{ ...printed.campaigns[0], outcome: 'overwritten' }] };
    expect(schemaErrors(SCHEMA('publish'), wrong)).not.toEqual([]);
    expect(printed).toMatchObject({ latest: 'adhoc', latestGreen: 'suite-b-1' });
    const history = JSON.parse(await readFile(join(site, 'history.json'), 'utf8')) as {
      campaigns: {
        campaignId: string;
        completeness: string;
        baseline: string | null;
        regressions: unknown[];
      }[];
      rerenders: { campaignId: string }[];
      groups: { points: { campaignId: string }[] }[];
    };
    expect(schemaErrors(SCHEMA('site-history'), history)).toEqual([]);
    expect(history.groups.map((group) => group.points.map((point) => point.campaignId))).toEqual([
      ['nightly-1', 'nightly-2'],
      ['suite-b-1'],
    ]);
    expect(history.rerenders.map((entry) => entry.campaignId)).toEqual(['nightly-2-report-1']);
    expect(history.campaigns.find((entry) => entry.campaignId === 'nightly-2')?.regressions).toHaveLength(2);
    expect(history.campaigns.find((entry) => entry.campaignId === 'adhoc')?.completeness).toBe('unknown');
    const index = await readFile(join(site, 'index.html'), 'utf8');
    expect(index).toContain('href="campaigns/nightly-1/index.html"');
    expect(index).toContain('<svg');
  });

  // A new user's review saw no per-campaign line from `--public`: each kind of site says, on
  // stderr, each campaign folder it published and how many files it holds, the same for both.
  it.each([
    ['private', []],
    ['public', ['--public']],
  ] as const)(
    'a %s publication prints a "published (N files, …)" line per campaign on stderr',
    async (kind, flags) => {
      const out = join(dir, `lines-${kind}`);
      const result = await evals(['publish', '--store', store, '--out', out, ...flags]);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stderr.split('\n').filter((line) => line.includes(': published ('));
      expect(lines.map((line) => /campaigns\/([^:]+):/.exec(line)?.[1]).sort()).toEqual(
        ['adhoc', 'nightly-1', 'nightly-2', 'nightly-2-report-1', 'nightly-3', 'suite-b-1'].sort(),
      );
      expect(lines.find((line) => line.includes('campaigns/nightly-2:'))).toMatch(
        /^evals: campaigns\/nightly-2: published \(\d+ files, campaign, complete\)$/,
      );
      expect(result.stdout).toContain(
        kind === 'public' ? '· public projection' : '6 campaign folder(s) published',
      );
    },
  );

  it('publishing again changes no byte; the human output says unchanged', async () => {
    const before = await snapshotTree(site);
    const result = await evals(['publish', '--store', store, '--out', site]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('0 campaign folder(s) published, 6 unchanged');
    const after = await snapshotTree(site);
    expect(Object.fromEntries(Object.entries(after).map(([path, file]) => [path, file.bytes]))).toEqual(
      Object.fromEntries(Object.entries(before).map(([path, file]) => [path, file.bytes])),
    );
  });

  it('refuses other bytes for a published campaign (exit 1, coded, --json failure) and changes nothing', async () => {
    await seedCampaigns(store, [
      { campaignId: 'nightly-1', minute: 1, record: null, cases: { case_late: true } },
    ]);
    const before = await snapshotTree(site);
    const result = await evals([
      'publish',
      '--store',
      store,
      '--out',
      site,
      '--campaign',
      'nightly-1',
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('campaign_folder_differs');
    const failure = JSON.parse(result.stdout) as { schema: string; error: { code: string } };
    expect(schemaErrors(SCHEMA('cli-failure'), failure)).toEqual([]);
    expect(failure).toMatchObject({
      schema: 'paperclip-evals/publish/v1',
      error: { code: 'paperclip_app_site_conflict' },
    });
    expect(await snapshotTree(site)).toEqual(before);
  });

  it('needs --out (exit 2) and refuses a campaign the store does not hold (exit 2)', async () => {
    expect((await evals(['publish', '--store', store])).code).toBe(2);
    const unknown = await evals([
      'publish',
      '--store',
      store,
      '--out',
      join(dir, 'other'),
      '--campaign',
      'nope',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('campaign_unknown');
    expect(unknown.stderr).toContain(
      'the store holds no attempt of campaign "nope": name a campaign (or run) that `evals runs` lists',
    );
  });
});

describe('evals publish --verify', () => {
  it('verifies the published site (exit 0, --json by its schema)', async () => {
    const result = await evals(['publish', '--verify', site, '--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(schemaErrors(SCHEMA('site-verification'), JSON.parse(result.stdout))).toEqual([]);
  });

  it('refuses a defect with its code (exit 1), and a site that is not there (exit 2)', async () => {
    const broken = join(dir, 'broken');
    expect(
      (await evals(['publish', '--store', store, '--out', broken, '--campaign', 'nightly-2'])).code,
    ).toBe(0);
    await writeFile(
      join(broken, 'campaigns/nightly-2/tests/case_a.html'),
      '<img src="https://example.com/x.png">',
    );
    const result = await evals(['publish', '--verify', broken, '--json']);
    expect(result.code).toBe(1);
    const verification = JSON.parse(result.stdout) as { ok: boolean; issues: { code: string }[] };
    expect(schemaErrors(SCHEMA('site-verification'), verification)).toEqual([]);
    // The schema can fail: a site said ok with defects, or a defect code verify never gives.
    expect(schemaErrors(SCHEMA('site-verification'), { ...verification, ok: true })).not.toEqual([]);
    expect(
      schemaErrors(SCHEMA('site-verification'), {
        ...verification,
        issues: [{ ...verification.issues[0], code: 'site_fine' }],
      }),
    ).not.toEqual([]);
    expect(verification.issues.map((issue) => issue.code).sort()).toEqual([
      'site_digest_mismatch',
      'site_remote_resource',
    ]);
    const human = await evals(['publish', '--verify', broken]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('site_remote_resource');
    expect((await evals(['publish', '--verify', join(dir, 'none')])).code).toBe(2);
  });

  it("refuses the review's site: garbage after latest.json, history.json cut at 100 bytes (exit 1, by its schema)", async () => {
    const vs = join(dir, 'vs');
    await cp(site, vs, { recursive: true });
    await writeFile(join(vs, 'latest.json'), 'garbage\n', { flag: 'a' });
    await writeFile(join(vs, 'history.json'), (await readFile(join(site, 'history.json'))).subarray(0, 100));
    const result = await evals(['publish', '--verify', vs, '--json']);
    expect(result.code).toBe(1);
    const verification = JSON.parse(result.stdout) as {
      ok: boolean;
      issues: { code: string; path: string }[];
    };
    expect(schemaErrors(SCHEMA('site-verification'), verification)).toEqual([]);
    expect(verification.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['site_root_invalid', 'history.json'],
      ['site_root_invalid', 'latest.json'],
    ]);
    const human = await evals(['publish', '--verify', vs]);
    expect(human.code).toBe(1);
    expect(human.stdout).not.toMatch(/\bverified\b/);
    expect(human.stdout).toContain('site_root_invalid');
  });
});

interface Fetched {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** GET a raw path (not normalised by a URL parser: `..` reaches the server as it is), with a Host header. */
function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('evals view', () => {
  it('serves the site on 127.0.0.1 with content types and the CSP, refuses traversal, symlinks and listings', async () => {
    await symlink('/etc/passwd', join(site, 'campaigns', 'passwd.html'));
    await writeFile(join(site, 'stray.json'), '{"not":"of the site"}\n');
    const child = spawn(process.execPath, [EVALS, 'view', site], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /http:\/\/127\.0\.0\.1:[0-9]+\//.exec(out);
          if (match !== null) resolve(match[0]);
        });
        child.on('exit', (code) => {
          reject(new Error(`view exited ${String(code)}`));
        });
      });
      const port = Number(new URL(url).port);
      const index = await get(port, '/');
      expect(index.status).toBe(200);
      expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(index.headers['content-security-policy']).toContain("default-src 'none'");
      expect(index.body).toContain('Campaigns');
      const campaign = await get(port, '/campaigns/nightly-1/index.html');
      expect(campaign.status).toBe(200);
      expect(campaign.body).toContain('Campaign nightly-1');
      const history = await get(port, '/history.json');
      expect(history.headers['content-type']).toBe('application/json; charset=utf-8');
      for (const path of [
        '/../../../etc/passwd',
        '/campaigns/..%2f..%2f..%2fetc%2fpasswd',
        '/campaigns/%2e%2e/%2e%2e/etc/passwd',
      ])
        expect((await get(port, path)).status, path).toBe(403);
      expect((await get(port, '/campaigns/passwd.html')).status).toBe(403);
      // Only the site's root files and campaigns are served: a stray file beside them is not.
      expect((await get(port, '/stray.json')).status).toBe(404);
      // A folder without index.html is never listed.
      expect((await get(port, '/campaigns/')).status).toBe(404);
      expect((await get(port, '/nothing.html')).status).toBe(404);
      // A file asked for as a folder is not there (its relative links would all resolve wrongly).
      expect((await get(port, '/index.html/')).status).toBe(404);
      // Only this server's own loopback names: a rebound name (a page elsewhere resolving its own name
      // to 127.0.0.1) reads nothing, whatever path it asks for.
      expect((await get(port, '/', `localhost:${port}`)).status).toBe(200);
      for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`])
        expect((await get(port, '/history.json', host)).status, host).toBe(421);
      // An HTTP/1.0 request with no Host at all is refused too.
      const bare = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end('GET /history.json HTTP/1.0\r\n\r\n'));
        let reply = '';
        socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
        socket.on('end', () => {
          resolve(reply);
        });
        socket.on('error', reject);
      });
      expect(bare.split('\r\n')[0]).toMatch(/^HTTP\/1\.[01] 421 /);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await rm(join(site, 'campaigns', 'passwd.html'));
      await rm(join(site, 'stray.json'));
    }
  }, 30_000);

  it('refuses a folder evals publish did not write (exit 2, nothing served)', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'evals-view-plain-'));
    await writeFile(join(plain, 'package.json'), '{}\n');
    const run = spawnSync(process.execPath, [EVALS, 'view', plain], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('site_not_published');
    expect(run.stdout).not.toContain('http://');
    await rm(plain, { recursive: true });
  }, 30_000);
});
