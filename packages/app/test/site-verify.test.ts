// `evals publish --verify` (issue 19): a published site verifies, and each defect is refused with its
// own code — a test per defect. A content defect is planted with the manifest updated to match
// (tamper), so the defect under test is the only one found.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { publishSite } from '../src/site/publish.ts';
import { verifySite } from '../src/site/verify.ts';
import { seedCampaigns } from '@paperclip-evals/test-kit/site-store';

let dir: string;
let published: string;
const FOLDER = 'campaigns/c1';
const PAGE = `${FOLDER}/tests/case_a.html`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-site-verify-'));
  const store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [{ campaignId: 'c1', minute: 1, cases: { case_a: true, case_b: false } }]);
  published = join(dir, 'published');
  await publishSite({ store, out: published });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let copies = 0;
/** A fresh copy of the published site. */
async function copy(): Promise<string> {
  const site = join(dir, `copy-${copies++}`);
  await cp(published, site, { recursive: true });
  return site;
}

/** Rewrites a campaign file and its manifest entry, so that only what `change` planted is wrong. */
async function tamper(site: string, path: string, change: (text: string) => string): Promise<void> {
  const text = change(await readFile(join(site, path), 'utf8'));
  await writeFile(join(site, path), text);
  if (!path.startsWith(`${FOLDER}/`)) return;
  const manifestPath = join(site, FOLDER, 'bundle-manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    files: { path: string; sha256: string; size: number }[];
  };
  const bytes = Buffer.from(text);
  for (const entry of manifest.files)
    if (entry.path === path.slice(FOLDER.length + 1)) {
      entry.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      entry.size = bytes.length;
    }
  await writeFile(manifestPath, JSON.stringify(manifest));
}

const codes = async (site: string): Promise<string[]> =>
  [...new Set((await verifySite(site)).issues.map((issue) => issue.code))].sort();
const beforeBody = (html: string) => (text: string) => text.replace('</main>', `${html}</main>`);

describe('evals publish --verify', () => {
  it('verifies a site as published', async () => {
    const result = await verifySite(published);
    expect(result).toMatchObject({ ok: true, issues: [], campaigns: 1 });
    expect(result.files).toBeGreaterThan(8);
  });

  it('site_digest_mismatch: a file changed after publication', async () => {
    const site = await copy();
    await writeFile(join(site, PAGE), `${await readFile(join(site, PAGE), 'utf8')} `);
    expect(await codes(site)).toEqual(['site_digest_mismatch']);
  });

  it('site_digest_mismatch: a file grown past its listed size is refused by its size, never read (a sparse 8 GiB page)', async () => {
    const site = await copy();
    await truncate(join(site, PAGE), 8 * 1024 * 1024 * 1024);
    const bytesRead = (): number =>
      Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
    const before = bytesRead();
    const result = await verifySite(site, { threads: 1 });
    expect(bytesRead() - before).toBeLessThan(64 * 1024 * 1024);
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'site_digest_mismatch',
        received: `${8 * 1024 * 1024 * 1024} bytes (not read)`,
      }),
    ]);
  });

  it('site_unknown_path: a file the manifest does not list, or a path outside the layout', async () => {
    const site = await copy();
    await writeFile(join(site, FOLDER, 'attempts', 'extra.html'), '<p>added</p>');
    expect(await codes(site)).toEqual(['site_unknown_path']);
    const root = await copy();
    await writeFile(join(root, 'notes.txt'), 'hello');
    expect(await codes(root)).toEqual(['site_unknown_path']);
  });

  it.each([['notes.txt'], ['attempts/deep/nested/x.html']])(
    'site_unknown_path: %s, listed in the manifest and there, is one defect, never "not there"',
    async (path) => {
      const site = await copy();
      await mkdir(join(site, FOLDER, path, '..'), { recursive: true });
      await writeFile(join(site, FOLDER, path), '<p>added</p>');
      await tamper(site, `${FOLDER}/bundle-manifest.json`, (text) => {
        const manifest = JSON.parse(text) as { files: { path: string; sha256: string; size: number }[] };
        manifest.files.push({
          path,
          sha256: `sha256:${createHash('sha256').update('<p>added</p>').digest('hex')}`,
          size: 12,
        });
        return JSON.stringify(manifest);
      });
      const issues = (await verifySite(site)).issues;
      expect(issues.map((found) => found.code)).toEqual(['site_unknown_path']);
      expect(issues[0]?.message).toContain('layout');
    },
  );

  it('site_file_missing: a file the manifest lists is gone', async () => {
    const site = await copy();
    await unlink(join(site, PAGE));
    // The campaign page links to it too: that link is broken now.
    expect(await codes(site)).toEqual(['site_file_missing', 'site_link_broken']);
  });

  it('site_manifest_missing: a campaign folder without its manifest', async () => {
    const site = await copy();
    await unlink(join(site, FOLDER, 'bundle-manifest.json'));
    expect(await codes(site)).toEqual(['site_manifest_missing']);
  });

  it('site_symlink: a symbolic link anywhere', async () => {
    const site = await copy();
    await symlink('/etc/passwd', join(site, FOLDER, 'tests', 'passwd.html'));
    expect(await codes(site)).toContain('site_symlink');
    const root = await copy();
    await symlink(join(root, 'index.html'), join(root, 'latest-link.html'));
    expect(await codes(root)).toContain('site_symlink');
  });

  it.each([
    ['an inline script of someone else', '<script>fetch("/x")</script>'],
    ['a script with src', '<script src="evil.js"></script>'],
    ['an event handler', '<img alt="" src="data:image/png;base64,AA==" onerror="alert(1)">'],
    ['a javascript: URL', '<a href="javascript:alert(1)">x</a>'],
    // A browser decodes character references in an attribute before it reads the URL.
    ['a javascript: URL by character references', '<a href="jav&#x61;script&colon;alert(1)">x</a>'],
    ['a javascript: URL by a decimal reference', '<a href="&#106;avascript:alert(1)">x</a>'],
    ['a script inside an iframe srcdoc', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>'],
    // A data: document is a page of its own, encoded: publish never writes one.
    [
      'a data:text/html iframe',
      '<iframe src="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    ],
    ['a base64 data: document', '<object data="DATA:text/html;base64,PHNjcmlwdD4="></object>'],
    ['a data: SVG in an embed', '<embed src="data:image/svg+xml,&lt;svg onload=alert(1)&gt;">'],
  ])('site_script_foreign: %s', async (_name, html) => {
    const site = await copy();
    await tamper(site, PAGE, beforeBody(html));
    expect(await codes(site)).toContain('site_script_foreign');
    expect((await codes(site)).filter((code) => code !== 'site_link_broken')).toEqual([
      'site_script_foreign',
    ]);
  });

  it.each([
    ['an https: image', '<img alt="" src="https://example.com/pixel.png">'],
    ['an http: stylesheet link', '<link rel="stylesheet" href="http://example.com/a.css">'],
    ['a protocol-relative source', '<img alt="" src="//cdn.example.com/p.png">'],
    ['a CSS url()', '<style>body{background:url(https://example.com/b.png)}</style>'],
    ['a CSS @import', '<style>@import "https://example.com/c.css";</style>'],
    ['an inline style url()', '<p style="background:url(\'//example.com/d.png\')">x</p>'],
    [
      'an inline style url() quoted by references',
      '<p style="background:url(&quot;https://example.com/e.png&quot;)">x</p>',
    ],
    ['a CSS image-set()', '<style>.x{background-image:image-set("https://example.com/f.png" 1x)}</style>'],
    [
      'an inline -webkit-image-set()',
      '<div style="background-image:-webkit-image-set(&quot;https://example.com/g.png&quot; 1x)">x</div>',
    ],
    ['a CSS url( written with an escape', '<style>.x{background:u\\72l(https://example.com/h.png)}</style>'],
    ['a CSS @import written with escapes', '<style>@\\69mport "https://example.com/i.css";</style>'],
    ['an https: image by a character reference', '<img alt="" src="&#104;ttps://example.com/p.png">'],
    [
      'a srcset candidate',
      '<img alt="" src="data:image/png;base64,AA==" srcset="../index.html 1x, https://example.com/p.png 2x">',
    ],
    ['a meta refresh', '<meta http-equiv="refresh" content="0; url=https://example.com/">'],
    [
      'an image inside an iframe srcdoc',
      '<iframe srcdoc="&lt;img src=&quot;https://example.com/p.png&quot;&gt;"></iframe>',
    ],
  ])('site_remote_resource: %s', async (_name, html) => {
    const site = await copy();
    await tamper(site, PAGE, beforeBody(html));
    expect(await codes(site)).toEqual(['site_remote_resource']);
  });

  it('site_link_broken: a local link to a file that is not in the site (or outside it)', async () => {
    const site = await copy();
    await tamper(site, PAGE, beforeBody('<a href="../attempts/none.html">gone</a>'));
    expect(await codes(site)).toEqual(['site_link_broken']);
    const outside = await copy();
    await tamper(outside, PAGE, beforeBody('<a href="../../../../etc/passwd">out</a>'));
    expect(await codes(outside)).toEqual(['site_link_broken']);
  });

  it.each([
    ['an OpenAI key', 'sk-proj-abcdefghijklmnopqrstuvwx'],
    ['a GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['a bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc'],
    ['a private key', '-----BEGIN RSA PRIVATE KEY-----'],
  ])('site_credential: %s, never echoed', async (_name, secret) => {
    const site = await copy();
    await tamper(site, PAGE, beforeBody(`<p>${secret}</p>`));
    const result = await verifySite(site);
    expect(result.issues.map((issue) => issue.code)).toEqual(['site_credential']);
    expect(JSON.stringify(result)).not.toContain(secret.slice(-12));
    // In a root file (no manifest) too: found as a credential, and the member its schema does not have.
    const root = await copy();
    await tamper(root, 'history.json', (text) =>
      text.replace('"campaigns"', `"note": ${JSON.stringify(secret)}, "campaigns"`),
    );
    expect(await codes(root)).toEqual(['site_credential', 'site_root_schema']);
  });

  // What a reader gets is the decoded text: a character reference in a page, a \u escape in JSON.
  it.each([
    ['a GitHub token by a character reference', PAGE, 'ghp&#95;0123456789abcdefghijABCDEFGHIJ'],
    ['an AWS access key id by a hex reference', PAGE, 'AKIA&#x49;OSFODNN7EXAMPLE'],
    ['an OpenAI key by a JSON escape', `${FOLDER}/campaign.json`, 'sk\\u002dproj-abcdefghijklmnopqrstuvwx'],
  ])('site_credential: %s, decoded as a reader decodes it', async (_name, path, secret) => {
    const site = await copy();
    await tamper(site, path, (text) =>
      path.endsWith('.html')
        ? beforeBody(`<p>${secret}</p>`)(text)
        : text.replace('{', `{"note":"${secret}",`),
    );
    expect(await codes(site)).toEqual(['site_credential']);
  });

  it('reports every defect at once', async () => {
    const site = await copy();
    await writeFile(
      join(site, PAGE),
      '<script>x()</script><img src="https://e.com/a.png"> sk-abcdefghijklmnopqrstuv',
    );
    await writeFile(join(site, 'extra.txt'), 'x');
    expect(await codes(site)).toEqual(
      [
        'site_credential',
        'site_digest_mismatch',
        'site_remote_resource',
        'site_script_foreign',
        'site_unknown_path',
      ].sort(),
    );
  });
});
