// Credentials written percent-encoded or by character references, layered (issue 19): a browser,
// an address bar or a copy-paste decodes them, so `evals publish` masks them in every page it
// writes, private and public, and `evals publish --verify` refuses a page that holds one. A bundle
// with such credentials in a tool input, a tool result, the agent's text and the failure text is
// published both ways: no byte of either site, decoded as a reader decodes it, holds any of them,
// both verify, and the same page with one planted back is refused (site_credential).
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { credentialShapedValues, readerText } from '@paperclip-evals/contract';
import { openStore } from '@paperclip-evals/evalbook';

import { publishSite } from '../src/site/publish.ts';
import { verifySite } from '../src/site/verify.ts';
import { allBytes, seedCampaigns } from '@paperclip-evals/test-kit/site-store';

/** [as written in the bundle, what must never be readable on the site]. */
const ENCODED: readonly [string, string][] = [
  ['sk%2Dproj-ENCabcdefghijklmnop1234', 'ENCabcdefghijklmnop1234'],
  ['ghp&#95;ENC0123456789abcdefghijKLMN', 'ENC0123456789abcdefghijKLMN'],
  ['https://evals:ENC%40pass-w0rd@db.internal/book', 'ENC@pass-w0rd'],
  ['postgres://u:Q@db.internal/book', 'u:Q@'],
  ['AKIA%2549ENC0123456789AB', 'ENC0123456789AB'],
  ['Bearer%20ENCtoken.abc123', 'ENCtoken.abc123'],
];
const PUBLIC_ONLY: readonly [string, string][] = [
  // Free text of the agent: masked on a public page as maskSecrets masks name=value (decoded).
  ['token%3DENCtoken42', 'ENCtoken42'],
  ['%70assword=ENChunter2', 'ENChunter2'],
];

let dir: string;
let url: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-site-encoded-'));
  url = `sqlite:${join(dir, 'book.sqlite')}`;
  const all = [...ENCODED, ...PUBLIC_ONLY].map(([written]) => written).join(' and ');
  await seedCampaigns(url, [
    {
      campaignId: 'encoded',
      minute: 1,
      record: { caseDefinitions: [{ id: 'case_a', prompt: 'Summarise the case.', description: null }] },
      cases: { case_a: true, case_b: false },
      bundle: (bundle) => {
        const value = bundle as {
          events: {
            eventType: string;
            payload: { text?: string; semantic_tool?: Record<string, unknown> };
          }[];
          failure: Record<string, unknown> | null;
        };
        for (const event of value.events) {
          const tool = event.payload.semantic_tool;
          if (tool?.phase === 'input') tool.input = { query: `fetch ${all}` };
          if (tool?.phase === 'result') tool.result = { text: `got ${all}` };
          if (event.eventType === 'item.delta')
            event.payload.text = `${event.payload.text ?? ''} then used ${all}`;
        }
        if (value.failure !== null) value.failure.message = `failed with ${all}`;
        return value;
      },
    },
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('encoded credentials on a published site', () => {
  it('the store holds every one as written (so the checks below can fail)', async () => {
    const book = await openStore(url);
    let bundles = '';
    for await (const stored of book.attempts()) bundles += (await book.getBundle(stored.bundleDigest)) ?? '';
    await book.close();
    for (const [written] of [...ENCODED, ...PUBLIC_ONLY])
      expect(bundles).toContain(JSON.stringify(written).slice(1, -1));
  });

  it.each([
    ['private', false, ENCODED],
    ['public', true, [...ENCODED, ...PUBLIC_ONLY]],
  ] as const)(
    'the %s site holds none of them, read as a reader decodes it, and verifies',
    async (name, isPublic, rows) => {
      const site = join(dir, name);
      await publishSite({ store: url, out: site, public: isPublic });
      const decoded = readerText(await allBytes(site));
      for (const [, secret] of rows) expect(decoded).not.toContain(secret);
      expect(credentialShapedValues(await allBytes(site))).toEqual([]);
      expect((await verifySite(site)).issues).toEqual([]);
      if (!isPublic) {
        // The text around them is kept: the private page shows the tool input, masked.
        expect(decoded).toContain('fetch ');
        expect(decoded).toContain('postgres://u:***@db.internal/book');
      }
    },
  );

  it.each(ENCODED)('a page with %s planted back is refused (site_credential)', async (written) => {
    const site = join(dir, `planted-${createHash('sha256').update(written).digest('hex').slice(0, 8)}`);
    await publishSite({ store: url, out: site });
    const folder = join(site, 'campaigns/encoded');
    const page = 'tests/case_a.html';
    const text = (await readFile(join(folder, page), 'utf8')).replace('</main>', `<p>${written}</p></main>`);
    await writeFile(join(folder, page), text);
    const manifest = JSON.parse(await readFile(join(folder, 'bundle-manifest.json'), 'utf8')) as {
      files: { path: string; sha256: string; size: number }[];
    };
    for (const entry of manifest.files)
      if (entry.path === page) {
        entry.sha256 = `sha256:${createHash('sha256').update(text).digest('hex')}`;
        entry.size = Buffer.byteLength(text);
      }
    await writeFile(join(folder, 'bundle-manifest.json'), JSON.stringify(manifest));
    const result = await verifySite(site);
    expect(result.issues.map((issue) => issue.code)).toEqual(['site_credential']);
  });
});
