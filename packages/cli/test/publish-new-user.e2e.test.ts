// The published site as a new user meets it (issue 19, a review from a fresh clone), through the real
// CLI: the pages never depend on --env (a second publication with it changes no byte); the model,
// provider and driver of a campaign attempt are on its private and its public page; `evals view`
// redirects a folder without its trailing slash, and every relative link of a page it serves
// resolves; a publication that fails leaves nothing behind (a table: the out folder listed after
// each failure path); a folder that is not a site is refused before anything is written; a campaign
// changed since its publication (a retraction) is refused alone — the other campaigns and the root
// files are published — and the command the refusal names publishes the revision. The first run of
// each command is the binary, the later ones its program in this process (firstRunSpawned); `view`
// serving a site is always a process.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seedCampaigns, snapshotTree } from '@paperclip-evals/test-kit/site-store';

import { firstRunSpawned } from './support/evals-in-process.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const ZERO = `sha256:${'0'.repeat(64)}`;

let dir: string;
let store: string;

const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(process.execPath, [EVALS, ...args], { encoding: 'utf8', cwd: dir });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);
const evals = async (args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const { status, stdout, stderr } = await run(args);
  return { code: status, stdout, stderr };
};

/** Every file and folder under `root` (folders with a trailing /), or null when `root` is not there. */
async function listing(root: string): Promise<string[] | null> {
  const out: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(root, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        out.push(`${path}/`);
        await visit(path);
      } else out.push(path);
    }
  };
  try {
    await visit('');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return out.sort();
}

const bytesOf = (tree: Record<string, { bytes: string }>): Record<string, string> =>
  Object.fromEntries(Object.entries(tree).map(([path, file]) => [path, file.bytes]));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-publish-new-user-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [
    { campaignId: 'nightly-1', minute: 1, cases: { case_a: true, case_b: true } },
    { campaignId: 'nightly-2', minute: 2, cases: { case_a: true, case_b: false } },
    { campaignId: 'adhoc', minute: 3, record: null, cases: { case_a: false } },
  ]);
  // An environment that names the store's cases and configs, with a prompt and another model: the
  // very file that used to change the pages (and so made a second publication a conflict).
  await writeFile(
    join(dir, 'evalbook.yaml'),
    [
      'schema: paperclip-evals/environment/v1',
      'name: site-suite',
      'cases:',
      '  - id: case_a',
      '    prompt: PROMPT-FROM-THE-ENVIRONMENT',
      '    description: DESCRIPTION-FROM-THE-ENVIRONMENT',
      `    sha256: ${ZERO}`,
      '  - id: case_b',
      `    sha256: ${ZERO}`,
      'configs:',
      '  - id: config_a',
      `    sha256: ${ZERO}`,
      '    model: model-from-the-environment',
      '    driver: driver-from-the-environment',
      '  - id: config_b',
      `    sha256: ${ZERO}`,
      '    model: model-from-the-environment',
      '    driver: driver-from-the-environment',
      'report:',
      '  denominator: evaluated_only',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the pages come from the ledger alone', () => {
  it('publishing with --env after publishing without changes no byte (and the reverse)', async () => {
    const site = join(dir, 'env-site');
    const first = await evals(['publish', '--store', store, '--out', site]);
    expect(first.code, first.stderr).toBe(0);
    const before = await snapshotTree(site);
    const again = await evals(['publish', '--store', store, '--env', 'evalbook.yaml', '--out', site]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 campaign folder(s) published, 3 unchanged');
    expect(bytesOf(await snapshotTree(site))).toEqual(bytesOf(before));
    // Into a new site with --env first: the very same bytes as without it.
    const other = join(dir, 'env-first');
    expect((await evals(['publish', '--store', store, '--env', 'evalbook.yaml', '--out', other])).code).toBe(
      0,
    );
    expect(bytesOf(await snapshotTree(other))).toEqual(bytesOf(before));
    const text = Object.values(before)
      .map((file) => Buffer.from(file.bytes, 'base64').toString('utf8'))
      .join('\n');
    expect(text).not.toContain('FROM-THE-ENVIRONMENT');
    expect(text).not.toContain('the environment (--env) does not give this case one');
  });

  it("a campaign attempt's private and public pages name its provider, model and driver (the record's lane)", async () => {
    const site = join(dir, 'model-site');
    const pub = join(dir, 'model-public');
    expect((await evals(['publish', '--store', store, '--out', site, '--campaign', 'nightly-1'])).code).toBe(
      0,
    );
    expect(
      (await evals(['publish', '--store', store, '--out', pub, '--campaign', 'nightly-1', '--public'])).code,
    ).toBe(0);
    const page = (root: string, config: string): Promise<string> =>
      readFile(
        join(
          root,
          `campaigns/nightly-1/attempts/case_a.${config}.attempt_0_${config === 'config_a' ? 0 : 1}.html`,
        ),
        'utf8',
      );
    const publicA = await page(pub, 'config_a');
    expect(publicA).toContain('openai · gpt-x · codex');
    expect(publicA).not.toContain('not recorded</td>');
    expect(await page(pub, 'config_b')).toContain('anthropic · claude-y');
    const privateA = await page(site, 'config_a');
    expect(privateA).toContain(
      '<dt>model</dt><dd>openai · gpt-x</dd><dt>config&#39;s driver</dt><dd>codex</dd>',
    );
    // A run without a campaign record (and no eval session) says so: nothing is made up.
    expect(
      (await evals(['publish', '--store', store, '--out', pub, '--campaign', 'adhoc', '--public'])).code,
    ).toBe(0);
    const adhoc = await readdir(join(pub, 'campaigns/adhoc/attempts'));
    expect(await readFile(join(pub, 'campaigns/adhoc/attempts', adhoc[0] ?? ''), 'utf8')).toContain(
      'not recorded',
    );
  });
});

describe('a failed publication leaves nothing behind', () => {
  interface Failure {
    readonly name: string;
    /** Makes the out folder's state before the publication (the folder, relative to dir). */
    readonly prepare: (out: string) => Promise<void>;
    readonly args: (out: string) => string[];
    readonly code: number;
    readonly issue: string;
  }
  const failures: Failure[] = [
    {
      name: 'an unknown --campaign into a new folder',
      prepare: async () => {},
      args: (out) => ['--store', store, '--out', out, '--campaign', 'nope'],
      code: 2,
      issue: 'campaign_unknown',
    },
    {
      name: 'an unknown --campaign into an empty folder',
      prepare: async (out) => mkdir(join(dir, out)).then(() => undefined),
      args: (out) => ['--store', store, '--out', out, '--campaign', 'nope'],
      code: 2,
      issue: 'campaign_unknown',
    },
    {
      name: 'a folder that is not a site',
      prepare: async (out) => {
        await mkdir(join(dir, out));
        await writeFile(join(dir, out, 'readme.txt'), 'my notes\n');
      },
      args: (out) => ['--store', store, '--out', out],
      code: 2,
      issue: 'site_folder_foreign',
    },
    {
      name: 'a public publication into a private site',
      prepare: async (out) => {
        expect(
          (await evals(['publish', '--store', store, '--out', out, '--campaign', 'nightly-1'])).code,
        ).toBe(0);
      },
      args: (out) => ['--store', store, '--out', out, '--campaign', 'nightly-2', '--public'],
      code: 2,
      issue: 'site_mode_mismatch',
    },
    {
      name: 'a store that is not there',
      prepare: async () => {},
      args: (out) => ['--store', `sqlite:${join(dir, 'none.sqlite')}`, '--out', out],
      code: 2,
      issue: 'store',
    },
    {
      name: 'an --as that is not a re-render id of --campaign',
      prepare: async () => {},
      args: (out) => [
        '--store',
        store,
        '--out',
        out,
        '--campaign',
        'nightly-1',
        '--as',
        'nightly-2-report-1',
      ],
      code: 2,
      issue: 'site_rerender_id_invalid',
    },
    {
      name: 'an out folder whose parent is not there',
      prepare: async () => {},
      args: (out) => ['--store', store, '--out', join(out, 'deeper')],
      code: 2,
      issue: 'site_folder_missing',
    },
  ];
  it.each(failures.map((failure, index) => ({ ...failure, out: `fail-${index}` })))(
    '$name: exit $code, $issue, the out folder as it was',
    async ({ prepare, args, code, issue, out }) => {
      await prepare(out);
      const before = await listing(join(dir, out));
      const result = await evals(['publish', ...args(out), '--json']);
      expect(result.code, result.stderr).toBe(code);
      expect(`${result.stdout}${result.stderr}`).toContain(issue);
      expect(await listing(join(dir, out))).toEqual(before);
    },
  );

  it('the folder that is not a site would have failed its own --verify: refused with what to do', async () => {
    const result = await evals(['publish', '--store', store, '--out', 'fail-2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('readme.txt');
    expect(result.stderr).toContain('publish into a new or empty folder');
  });
});

describe('a campaign changed since its publication', () => {
  it('is refused alone (exit 1, named, what differs, the --as command); that command publishes the revision', async () => {
    const own = join(dir, 'retract.sqlite');
    const url = `sqlite:${own}`;
    await seedCampaigns(url, [
      { campaignId: 'c1', minute: 1, cases: { case_a: true, case_b: true } },
      { campaignId: 'c2', minute: 2, cases: { case_a: true, case_b: false } },
    ]);
    const site = join(dir, 'retract-site');
    expect((await evals(['publish', '--store', url, '--out', site])).code).toBe(0);
    const c1 = await snapshotTree(join(site, 'campaigns/c1'));
    const retract = await evals([
      'retract',
      '--store',
      url,
      '--run',
      'c1',
      '--reason',
      'broken harness',
      '--by',
      'ci',
    ]);
    expect(retract.code, retract.stderr).toBe(0);
    await seedCampaigns(url, [{ campaignId: 'c3', minute: 3, cases: { case_a: true, case_b: true } }]);

    const result = await evals(['publish', '--store', url, '--out', site, '--json']);
    expect(result.code, result.stderr).toBe(1);
    const failure = JSON.parse(result.stdout) as {
      error: { code: string; message: string; issues: { code: string; path: string; message: string }[] };
    };
    expect(failure.error.code).toBe('paperclip_app_site_conflict');
    expect(failure.error.issues).toEqual([
      expect.objectContaining({ code: 'campaign_folder_differs', path: 'campaigns/c1' }),
    ]);
    const command = `evals publish --store ${url} --campaign c1 --as c1-report-1 --out ${site}`;
    expect(failure.error.message).toContain(command);
    expect(failure.error.issues[0]?.message).toContain(command);
    // The other campaigns and the root files are published; c1's folder is as it was.
    expect(await snapshotTree(join(site, 'campaigns/c1'))).toEqual(c1);
    const history = JSON.parse(await readFile(join(site, 'history.json'), 'utf8')) as {
      campaigns: { campaignId: string }[];
      latest: string;
    };
    expect(history.campaigns.map((entry) => entry.campaignId).sort()).toEqual(['c1', 'c2', 'c3']);
    expect(history.latest).toBe('c3');

    // The command it names is real: it publishes the revision, listed apart as a re-render.
    const revision = await evals([...command.split(' ').slice(1)]);
    expect(revision.code, revision.stderr).toBe(0);
    const after = JSON.parse(await readFile(join(site, 'history.json'), 'utf8')) as {
      rerenders: { campaignId: string; refreshOf: string | null }[];
    };
    expect(after.rerenders).toEqual([
      expect.objectContaining({ campaignId: 'c1-report-1', refreshOf: 'c1' }),
    ]);
    const grid = await readFile(join(site, 'campaigns/c1-report-1/index.html'), 'utf8');
    expect(grid).toContain('Campaign c1-report-1');
    expect((await evals(['publish', '--verify', site])).code).toBe(0);
    // With the revision published, a whole-store publication holds everything again: exit 0.
    const later = await evals(['publish', '--store', url, '--out', site]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toContain('campaigns/c1-report-1: unchanged');
  });
});

interface Fetched {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

function get(port: number, path: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every relative href of a page, resolved against its URL path. */
const links = (body: string, at: string): string[] =>
  [...body.matchAll(/href="([^"#:]+)"/g)].map(
    (match) => new URL(match[1] ?? '', `http://site${at}`).pathname,
  );

describe('evals view', () => {
  it('a --port another process holds: exit 2, port_in_use and what to do — never a file error', async () => {
    const site = join(dir, 'view-taken');
    expect((await evals(['publish', '--store', store, '--out', site])).code).toBe(0);
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const address = holder.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const result = spawnSync(process.execPath, [EVALS, 'view', site, '--port', String(port)], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `port ${port} on 127.0.0.1 cannot be listened on: another process listens there (EADDRINUSE)`,
      );
      expect(result.stderr).toContain('port_in_use');
      expect(result.stderr).toContain('give another --port, or leave --port out for a free one');
      expect(result.stderr).not.toContain('name a file');
    } finally {
      holder.close();
    }
  });

  it('redirects a folder without its slash (301), and every relative link of the pages it serves resolves', async () => {
    const site = join(dir, 'view-site');
    expect((await evals(['publish', '--store', store, '--out', site])).code).toBe(0);
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
      const bare = await get(port, '/campaigns/nightly-2');
      expect(bare.status).toBe(301);
      expect(bare.location).toBe('/campaigns/nightly-2/');
      const attempts = (await readdir(join(site, 'campaigns/nightly-2/attempts'))).sort();
      for (const at of [
        '/campaigns/nightly-2/',
        '/campaigns/nightly-2/tests/case_b.html',
        `/campaigns/nightly-2/attempts/${attempts[0] ?? ''}`,
      ]) {
        const page = await get(port, at);
        expect(page.status, at).toBe(200);
        const hrefs = links(page.body, at);
        expect(hrefs.length, at).toBeGreaterThan(0);
        for (const href of hrefs) expect((await get(port, href)).status, `${at} → ${href}`).toBe(200);
      }
      // The private attempt page links to the campaign and to All campaigns.
      const attempt = await get(port, `/campaigns/nightly-2/attempts/${attempts[0] ?? ''}`);
      expect(links(attempt.body, `/campaigns/nightly-2/attempts/${attempts[0] ?? ''}`)).toEqual(
        expect.arrayContaining(['/index.html', '/campaigns/nightly-2/index.html']),
      );
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
