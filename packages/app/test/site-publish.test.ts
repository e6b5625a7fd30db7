// `evals publish` as a workflow (issue 19), in-process over a SQLite Evalbook of several campaigns:
// the history's grouping (same lanes and suite only), regressions and recoveries against the
// previous comparable COMPLETE campaign, latest and latest green, partial and record-less runs kept
// out of trends, a re-render listed apart; immutability (the same publication again changes no
// byte and no inode; other bytes for a published campaign are refused and nothing changes); and the
// public projection (a bundle full of markers yields a site with none of them in any byte); a
// case's prompt on a private attempt page from the campaign record alone (never on a public one).
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { credentialShapedValues, schemaErrors } from '@paperclip-evals/contract';
import {
  campaignFolder,
  leftOutText,
  openStore,
  summariseStore,
  writeCampaignPages,
  writeReport,
} from '@paperclip-evals/evalbook';

import { publishSite } from '../src/site/publish.ts';
import { verifySite } from '../src/site/verify.ts';
import { SUITE_B, allBytes, seedCampaigns, snapshotTree } from '@paperclip-evals/test-kit/site-store';

import type { LedgerStore, SiteHistory, SiteLatest } from '@paperclip-evals/evalbook';

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-site-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await seedCampaigns(store, [
    { campaignId: 'c1', minute: 1, cases: { case_a: true, case_b: true } },
    // case_b regresses against c1.
    { campaignId: 'c2', minute: 2, cases: { case_a: true, case_b: false } },
    // Partial: listed, never a baseline or a trend point.
    {
      campaignId: 'c3',
      minute: 3,
      record: { complete: false, partial: ['budget_stop'] },
      cases: { case_a: false, case_b: true },
    },
    // Recovers case_b against c2 (not c3, which is partial).
    { campaignId: 'c4', minute: 4, cases: { case_a: true, case_b: true } },
    // Another suite: its own group, no baseline.
    {
      campaignId: 'other-suite',
      minute: 5,
      record: { suite: SUITE_B },
      cases: { case_a: false, case_b: false },
    },
    // A re-render of c4 (no provider call): apart, never latest.
    { campaignId: 'c4-report-1', minute: 7, record: { tries: 0 }, cases: { case_a: true, case_b: true } },
    // No campaign record: completeness unknown.
    { campaignId: 'plain-ingest', minute: 6, record: null, cases: { case_a: true } },
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const json = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;

describe('the history of a site with several campaigns', () => {
  let site: string;
  let history: SiteHistory;
  beforeAll(async () => {
    site = join(dir, 'site');
    const result = await publishSite({ store, out: site });
    expect(result.campaigns.map((campaign) => campaign.outcome)).toEqual(Array(7).fill('published'));
    history = await json<SiteHistory>(join(site, 'history.json'));
  });

  it('lists every campaign newest first, the re-render apart', () => {
    expect(history.campaigns.map((entry) => entry.campaignId)).toEqual([
      'plain-ingest',
      'other-suite',
      'c4',
      'c3',
      'c2',
      'c1',
    ]);
    expect(
      history.rerenders.map((entry) => [entry.campaignId, entry.refreshOf, entry.providerCalls]),
    ).toEqual([['c4-report-1', 'c4', 0]]);
    const byId = new Map(history.campaigns.map((entry) => [entry.campaignId, entry]));
    expect(byId.get('plain-ingest')).toMatchObject({
      kind: 'run',
      completeness: 'unknown',
      green: false,
      baseline: null,
    });
    expect(byId.get('c3')).toMatchObject({
      completeness: 'partial',
      partialReasons: ['budget_stop'],
      green: false,
    });
  });

  it('groups complete campaigns by lanes and suite: another suite never shares a baseline', () => {
    expect(history.groups.map((group) => group.points.map((point) => point.campaignId))).toEqual([
      ['c1', 'c2', 'c4'],
      ['other-suite'],
    ]);
    const byId = new Map(history.campaigns.map((entry) => [entry.campaignId, entry]));
    expect(byId.get('other-suite')?.baseline).toBeNull();
    expect(byId.get('c2')?.baseline).toBe('c1');
    // c3 is partial: c4 compares with c2.
    expect(byId.get('c4')?.baseline).toBe('c2');
    expect(byId.get('c3')?.baseline).toBe('c2');
  });

  it('finds regressions and recoveries against the previous comparable complete campaign', () => {
    const byId = new Map(history.campaigns.map((entry) => [entry.campaignId, entry]));
    expect(byId.get('c2')?.regressions.map((change) => [change.caseId, change.configId])).toEqual([
      ['case_b', 'config_a'],
      ['case_b', 'config_b'],
    ]);
    expect(byId.get('c4')?.recoveries.map((change) => change.caseId)).toEqual(['case_b', 'case_b']);
    expect(byId.get('c4')?.regressions).toEqual([]);
  });

  it('latest is the newest campaign (never the re-render); latest green the newest complete one without a regression', async () => {
    expect(history.latest).toBe('plain-ingest');
    expect(history.latestGreen).toBe('other-suite');
    expect((await json<SiteLatest>(join(site, 'latest.json'))).campaign?.campaignId).toBe('plain-ingest');
    expect((await json<SiteLatest>(join(site, 'latest-green.json'))).campaign?.campaignId).toBe(
      'other-suite',
    );
  });

  it('writes history.json, latest.json, latest-green.json and each campaign.json by their schemas', async () => {
    const schema = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;
    expect(schemaErrors(schema('site-history'), history)).toEqual([]);
    for (const name of ['latest.json', 'latest-green.json'])
      expect(schemaErrors(schema('site-latest'), await json(join(site, name)))).toEqual([]);
    for (const entry of [...history.campaigns, ...history.rerenders])
      expect(
        schemaErrors(schema('site-campaign'), await json(join(site, entry.folder, 'campaign.json'))),
      ).toEqual([]);
    // The schemas can fail: a history without its latest green is refused.
    const { latestGreen: _dropped, ...broken } = history;
    expect(schemaErrors(schema('site-history'), broken)).not.toEqual([]);
  });

  it("a campaign's grid is its run alone: c2's collapse of case_b is never pooled with c1's solves", async () => {
    const page = await readFile(join(site, campaignFolder('c2'), 'index.html'), 'utf8');
    for (const scope of ['latest', 'all'])
      expect(page).toMatch(
        new RegExp(
          `<td class="cell" data-scope="${scope}" data-case="case_b" data-config="config_a" data-solved="0" data-counted="1" data-rate="0"`,
        ),
      );
    const campaign = await json<{
      cells: { caseId: string; configId: string; solved: number; counted: number }[];
    }>(join(site, campaignFolder('c2'), 'campaign.json'));
    expect(
      campaign.cells.find((cell) => cell.caseId === 'case_b' && cell.configId === 'config_a'),
    ).toMatchObject({
      solved: 0,
      counted: 1,
    });
  });

  it('writes a site that verifies', async () => {
    const verification = await verifySite(site);
    expect(verification.issues).toEqual([]);
    expect(verification.campaigns).toBe(7);
  });
});

describe('the store reads of a publication', () => {
  /** The store, counting every attempt record it hands out; `wholeStore`: as before, every attempt for any run. */
  function spied(inner: LedgerStore, wholeStore: boolean): { store: LedgerStore; reads: () => number } {
    let reads = 0;
    const store: LedgerStore = {
      ...inner,
      attempts: async function* (runId?: string) {
        for await (const stored of inner.attempts(wholeStore ? undefined : runId)) {
          reads++;
          yield stored;
        }
      },
    };
    return { store, reads: () => reads };
  }

  /** Every campaign's folder as publishSite writes it (writeCampaignPages per run), file → bytes. */
  async function pagesOf(store: LedgerStore): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    const records = new Map((await store.campaigns()).map((entry) => [entry.campaignId, entry.record]));
    for (const { runId } of await store.runs())
      await writeCampaignPages({
        store,
        campaignId: runId,
        record: records.get(runId) ?? null,
        public: false,
        emit: (path, content) => {
          files.set(`${runId}/${path}`, Buffer.from(content).toString('base64'));
          return Promise.resolve();
        },
      });
    return files;
  }

  it('reads each attempt once for the whole publication (not the store once per campaign), and writes the same bytes', async () => {
    const inner = await openStore(store, { mustExist: true, readOnly: true });
    try {
      const total = await inner.countAttempts();
      const runs = (await inner.runs()).length;
      expect(runs).toBe(7);
      const indexed = spied(inner, false);
      const before = spied(inner, true);
      const pages = await pagesOf(indexed.store);
      const legacy = await pagesOf(before.store);
      // the way it was: every campaign read the whole store
      expect(before.reads()).toBe(runs * total);
      expect(indexed.reads()).toBe(total);
      expect([...pages.keys()].length).toBeGreaterThan(runs * 3);
      expect(pages).toEqual(legacy);
    } finally {
      await inner.close();
    }
  });
});

describe('immutability', () => {
  it('publishing the same store again changes no byte and no campaign file (same inodes)', async () => {
    const site = join(dir, 'again');
    await publishSite({ store, out: site });
    const before = await snapshotTree(site);
    const result = await publishSite({ store, out: site });
    expect(result.campaigns.every((campaign) => campaign.outcome === 'unchanged')).toBe(true);
    const after = await snapshotTree(site);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const [path, file] of Object.entries(after)) {
      expect(file.bytes, path).toBe(before[path]?.bytes);
      // Only the root files are rewritten (atomically, so new inodes); campaign files never.
      if (path.startsWith('campaigns/')) expect(file.ino, path).toBe(before[path]?.ino);
    }
  });

  it('refuses other bytes for a published campaign (coded) and changes nothing', async () => {
    const own = join(dir, 'own.sqlite');
    await cp(join(dir, 'book.sqlite'), own);
    const url = `sqlite:${own}`;
    const site = join(dir, 'conflict');
    await publishSite({ store: url, out: site, campaign: 'c1' });
    // One more attempt of c1 lands in the ledger after publication.
    await seedCampaigns(url, [{ campaignId: 'c1', minute: 1, record: null, cases: { case_late: true } }]);
    const before = await snapshotTree(site);
    await expect(publishSite({ store: url, out: site, campaign: 'c1' })).rejects.toMatchObject({
      code: 'paperclip_app_site_conflict',
      issues: [expect.objectContaining({ code: 'campaign_folder_differs', path: 'campaigns/c1' })],
    });
    expect(await snapshotTree(site)).toEqual(before);
  });

  it('refuses a published folder whose files no longer match its manifest', async () => {
    const site = join(dir, 'tampered');
    await publishSite({ store, out: site, campaign: 'c1' });
    const page = join(site, 'campaigns/c1/tests/case_a.html');
    await writeFile(page, `${await readFile(page, 'utf8')}<!-- changed -->`);
    await expect(publishSite({ store, out: site, campaign: 'c1' })).rejects.toMatchObject({
      code: 'paperclip_app_site_conflict',
      issues: [expect.objectContaining({ code: 'site_digest_mismatch' })],
    });
  });

  it('refuses a public publication into a private site (and the reverse)', async () => {
    const site = join(dir, 'mode');
    await publishSite({ store, out: site, campaign: 'c1' });
    await expect(publishSite({ store, out: site, campaign: 'c2', public: true })).rejects.toMatchObject({
      code: 'paperclip_app_request_invalid',
      issues: [expect.objectContaining({ code: 'site_mode_mismatch' })],
    });
  });

  it('refuses a store it cannot read before it makes any folder', async () => {
    const site = join(dir, 'from-a-missing-store');
    await expect(
      publishSite({ store: `sqlite:${join(dir, 'no-such.sqlite')}`, out: site }),
    ).rejects.toThrowCode('paperclip_evalbook_store_unusable');
    await expect(readFile(site)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a campaign the store does not hold, and leaves no folder behind', async () => {
    const site = join(dir, 'unknown');
    await expect(publishSite({ store, out: site, campaign: 'nope' })).rejects.toMatchObject({
      code: 'paperclip_evalbook_scope_unknown',
    });
    // Not even an empty folder: the site folder and its campaigns/ were made by this publication.
    await expect(readdir(site)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a campaign with no attempt, only tries started and never settled (a run SIGKILLed mid-session)', () => {
  /** A copy of the store where campaign `killed` has one try started and no attempt. */
  const withKilled = async (name: string): Promise<string> => {
    const path = join(dir, `${name}.sqlite`);
    await cp(join(dir, 'book.sqlite'), path);
    const opened = await openStore(`sqlite:${path}`, { mustExist: true });
    try {
      await opened.recordTryStart({
        campaignId: 'killed',
        caseId: 'case_a',
        configId: 'config_a',
        attemptId: 'killed_1',
        tryNumber: 1,
        tryId: 'killed_1',
        startedAt: '2026-12-01T09:00:00.000Z',
        runner: { packageName: 'p', packageVersion: '1.0.0', runnerdSha256: 'sha256:r', host: 'h', pid: 7 },
      });
      // `evals runs` lists it: 0 attempts, its start unknown spend.
      expect((await opened.runs()).find((run) => run.runId === 'killed')).toMatchObject({
        attempts: 0,
        spend: { unpriced: 1, unsettledTries: 1 },
      });
    } finally {
      await opened.close();
    }
    return `sqlite:${path}`;
  };

  it('is skipped and said (no folder, not in the history); published once it has an attempt', async () => {
    const url = await withKilled('killed');
    const site = join(dir, 'with-killed');
    const result = await publishSite({ store: url, out: site });
    expect(result.skipped).toEqual([
      { campaignId: 'killed', reason: 'no_attempt', unsettledTries: 1, foreign: 0 },
    ]);
    expect(result.campaigns.map((campaign) => campaign.campaignId)).not.toContain('killed');
    expect(result.campaigns).toHaveLength(7);
    expect(await readdir(join(site, 'campaigns'))).not.toContain(
      campaignFolder('killed').slice('campaigns/'.length),
    );
    const history = await json<SiteHistory>(join(site, 'history.json'));
    expect(history.campaigns.map((entry) => entry.campaignId)).not.toContain('killed');
    // Nothing immutable was pinned: once the campaign has an attempt, it is published like any other.
    await seedCampaigns(url, [{ campaignId: 'killed', minute: 8, record: null, cases: { case_a: true } }]);
    const again = await publishSite({ store: url, out: site });
    expect(again.skipped).toEqual([]);
    expect(again.campaigns.find((campaign) => campaign.campaignId === 'killed')?.outcome).toBe('published');
    expect((await verifySite(site)).ok).toBe(true);
  });

  it('named with --campaign: refused, saying why, before any folder is made', async () => {
    const url = await withKilled('killed-named');
    const site = join(dir, 'killed-named');
    await expect(publishSite({ store: url, out: site, campaign: 'killed' })).rejects.toMatchObject({
      code: 'paperclip_app_input_invalid',
      message: expect.stringContaining('only 1 try started and never settled') as unknown,
      issues: [
        expect.objectContaining({
          code: 'campaign_has_no_attempt',
          component: '--campaign',
          received: '0 attempts, 1 try started and never settled',
        }),
      ],
    });
    await expect(readdir(site)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a campaign whose tries were retried (retryable infrastructure failures)', () => {
  it('counts each planned attempt once, by its final try: the folder, campaign.json, the summary and the report', async () => {
    const url = `sqlite:${join(dir, 'retried.sqlite')}`;
    // 2 cases × 2 lanes planned; each tried twice (try 1 failed, try 2 solved): 8 tries, 4 attempts.
    await seedCampaigns(url, [
      { campaignId: 'retried', minute: 1, retried: true, cases: { case_a: true, case_b: true } },
    ]);
    const site = join(dir, 'retried-site');
    const result = await publishSite({ store: url, out: site });
    expect(result.campaigns.map((campaign) => campaign.campaignId)).toEqual(['retried']);
    const folder = join(site, campaignFolder('retried'));
    const campaign = await json<{
      attempts: number;
      solved: number;
      passRate: number;
      providerCalls: number;
      statusCounts: Record<string, number>;
    }>(join(folder, 'campaign.json'));
    expect(campaign).toMatchObject({ attempts: 4, solved: 4, passRate: 1, providerCalls: 8 });
    expect(campaign.statusCounts).toMatchObject({ solved: 4, unsolved: 0, errored: 0 });
    // A page per planned attempt, each its final try's; no page for a replaced try.
    const pages = (await readdir(join(folder, 'attempts'))).sort();
    expect(pages).toHaveLength(4);
    expect(pages.every((page) => page.includes('-r1'))).toBe(true);
    const history = await json<SiteHistory>(join(site, 'history.json'));
    expect(history.campaigns[0]).toMatchObject({ campaignId: 'retried', attempts: 4, passRate: 1 });
    expect((await verifySite(site)).ok).toBe(true);

    const opened = await openStore(url, { mustExist: true });
    try {
      const summary = await summariseStore(opened);
      expect(summary).toMatchObject({ attempts: 4, leftOut: { foreign: 0, retracted: 0, retried: 4 } });
      expect(summary.statusCounts.solved).toBe(4);
      // The JSON report lists the final tries only, and says what it left out.
      let text = '';
      const report = await writeReport({
        store: opened,
        storeUrl: url,
        format: 'json',
        write: (chunk) => {
          text += chunk;
          return Promise.resolve();
        },
      });
      expect(report.summary.attempts).toBe(4);
      const parsed = JSON.parse(text) as { attempts: { attemptId: string; status: string }[] };
      expect(parsed.attempts.map((attempt) => attempt.attemptId).sort()).toEqual([
        'attempt_0_0-r1',
        'attempt_0_1-r1',
        'attempt_1_0-r1',
        'attempt_1_1-r1',
      ]);
      expect(parsed.attempts.every((attempt) => attempt.status === 'solved')).toBe(true);
      expect(schemaErrors('https://paperclip-evals.dev/schemas/report/v1.json', parsed)).toEqual([]);
      expect(leftOutText(report.summary)).toContain('4 tries of a campaign replaced by a retry');
    } finally {
      await opened.close();
    }
  });
});

describe('a run made only of foreign attempts (ingest --keep-foreign)', () => {
  const withForeign = async (name: string): Promise<string> => {
    const path = join(dir, `${name}.sqlite`);
    await cp(join(dir, 'book.sqlite'), path);
    await seedCampaigns(`sqlite:${path}`, [
      { campaignId: 'foreign-run', minute: 9, record: null, foreign: true, cases: { case_a: true } },
    ]);
    return `sqlite:${path}`;
  };

  it('is skipped and said: no folder, never latest', async () => {
    const url = await withForeign('foreign');
    const site = join(dir, 'with-foreign');
    const result = await publishSite({ store: url, out: site });
    expect(result.skipped).toEqual([
      { campaignId: 'foreign-run', reason: 'only_foreign', unsettledTries: 0, foreign: 2 },
    ]);
    expect(result.campaigns.map((campaign) => campaign.campaignId)).not.toContain('foreign-run');
    expect(result.latest).not.toBe('foreign-run');
    expect(await readdir(join(site, 'campaigns'))).not.toContain(
      campaignFolder('foreign-run').slice('campaigns/'.length),
    );
    expect(schemaErrors('https://paperclip-evals.dev/schemas/publish/v1.json', result)).toEqual([]);
  });

  it('named with --campaign: refused, saying why, before any folder is made', async () => {
    const url = await withForeign('foreign-named');
    const site = join(dir, 'foreign-named');
    await expect(publishSite({ store: url, out: site, campaign: 'foreign-run' })).rejects.toMatchObject({
      code: 'paperclip_app_input_invalid',
      issues: [expect.objectContaining({ code: 'campaign_only_foreign', component: '--campaign' })],
    });
    await expect(readdir(site)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the public projection', () => {
  // Markers in every tool input and result, the session id, the failure text, and credential-shaped
  // values in the progress text and the failure text: none may reach any byte of a public site.
  const MARKERS = {
    toolInput: 'MARKER-TOOL-INPUT-5f1c',
    toolResult: 'MARKER-TOOL-RESULT-9a2e',
    session: 'MARKERSESSION7d3b',
    failure: 'MARKER-FAILURE-TEXT-44e0',
  };
  const CREDENTIALS = [
    'sk-proj-MARKERabcdefghijklmnop1234',
    'ghp_MARKER0123456789abcdefghijKLMN',
    'AKIAMARKER0123456789',
    'Bearer MARKERtoken.abc123',
  ];
  const marked = (bundle: Record<string, unknown>): Record<string, unknown> => {
    // The session id, and the call ids (which, as upstream's runner writes them, carry it).
    const text = JSON.stringify(bundle)
      .replaceAll('session_', `session_${MARKERS.session}_`)
      .replaceAll('"call_', `"call_${MARKERS.session}_`);
    const value = JSON.parse(text) as {
      events: { eventType: string; payload: { text?: string; semantic_tool?: Record<string, unknown> } }[];
      failure: Record<string, unknown> | null;
    };
    for (const event of value.events) {
      const tool = event.payload.semantic_tool;
      if (tool?.phase === 'input') tool.input = { query: `${MARKERS.toolInput} ${CREDENTIALS[0] ?? ''}` };
      if (tool?.phase === 'result') tool.result = { text: MARKERS.toolResult };
      if (event.eventType === 'item.delta')
        event.payload.text = `${event.payload.text ?? ''} then used ${CREDENTIALS.join(' and ')}`;
    }
    // A runner check named by its tool call (as the reference runner names them).
    const call =
      (value as unknown as { semanticTools: { calls: { callId: string }[] } }).semanticTools.calls[0]
        ?.callId ?? '';
    (value as unknown as { observations: unknown }).observations = {
      checks: [{ id: `tool:read_document:${call}`, passed: true }],
    };
    if (value.failure !== null) value.failure.message = `${MARKERS.failure} with ${CREDENTIALS[1] ?? ''}`;
    return value;
  };
  let url: string;
  beforeAll(async () => {
    url = `sqlite:${join(dir, 'markers.sqlite')}`;
    await seedCampaigns(url, [
      {
        campaignId: 'marked',
        minute: 1,
        // A record that carries the suite's prompts: the progress text can be checked for them, so it is published.
        record: {
          caseDefinitions: [
            { id: 'case_ok', prompt: 'Summarise the ok case.', description: null },
            { id: 'case_failed', prompt: 'Summarise the failed case.', description: null },
          ],
        },
        cases: { case_ok: true, case_failed: false },
        bundle: marked,
      },
    ]);
  });

  it('the store holds every marker (so the grep below can fail)', async () => {
    const book = await openStore(url);
    let bundles = '';
    for await (const stored of book.attempts()) bundles += (await book.getBundle(stored.bundleDigest)) ?? '';
    await book.close();
    for (const marker of [...Object.values(MARKERS), ...CREDENTIALS]) expect(bundles).toContain(marker);
  });

  it('no byte of the public site holds a marker or a credential, and it verifies', async () => {
    const site = join(dir, 'public');
    await publishSite({ store: url, out: site, public: true });
    const bytes = await allBytes(site);
    for (const marker of [...Object.values(MARKERS), ...CREDENTIALS, 'MARKER'])
      expect(bytes).not.toContain(marker);
    // What the allowlist keeps is there: tool names and outcomes, the scrubbed progress text.
    expect(bytes).toContain('read_document');
    expect(bytes).toContain('the agent reads, plans');
    expect(bytes).toContain('tool:read_document:call-1');
    expect((await verifySite(site)).issues).toEqual([]);
  });

  it('the private site of the same store shows the failure text, tool payloads and progress text with every credential masked, and verifies', async () => {
    // Was: refused by verify (site_credential) — an immutable folder that could never verify.
    const site = join(dir, 'private-marked');
    await publishSite({ store: url, out: site });
    const bytes = await allBytes(site);
    expect(bytes).toContain(MARKERS.failure);
    expect(bytes).toContain(MARKERS.toolInput);
    expect(bytes).toContain('then used ***');
    for (const credential of CREDENTIALS) expect(bytes).not.toContain(credential);
    expect(credentialShapedValues(bytes)).toEqual([]);
    expect((await verifySite(site)).issues).toEqual([]);
  });
});

describe("a case's prompt on its attempt pages, from the campaign record (issue 19)", () => {
  const PROMPT = 'MARKER-PROMPT <Summarise> the "incident" review';
  const DESCRIPTION = 'MARKER-DESCRIPTION the brief';
  let url: string;
  beforeAll(async () => {
    url = `sqlite:${join(dir, 'prompts.sqlite')}`;
    await seedCampaigns(url, [
      {
        campaignId: 'carries',
        minute: 1,
        record: { caseDefinitions: [{ id: 'case_a', prompt: PROMPT, description: DESCRIPTION }] },
        cases: { case_a: true, case_b: false },
      },
      // A record written before records carried caseDefinitions.
      { campaignId: 'older', minute: 2, cases: { case_a: true } },
      { campaignId: 'ingested', minute: 3, record: null, cases: { case_a: true } },
    ]);
  });
  const page = (site: string, campaign: string, caseId: string, configId: string, attempt: string) =>
    readFile(join(site, 'campaigns', campaign, 'attempts', `${caseId}.${configId}.${attempt}.html`), 'utf8');

  it('a private attempt page shows the prompt and description the record carries; without them it says why', async () => {
    const site = join(dir, 'prompts-private');
    await publishSite({ store: url, out: site });
    for (const attempt of ['attempt_0_0', 'attempt_0_1']) {
      const html = await page(
        site,
        'carries',
        'case_a',
        attempt.endsWith('0') ? 'config_a' : 'config_b',
        attempt,
      );
      expect(html).toContain(
        '<blockquote class="prompt" data-field="prompt">MARKER-PROMPT &lt;Summarise&gt; the &quot;incident&quot; review</blockquote>',
      );
      expect(html).toContain(DESCRIPTION);
    }
    // A case the record does not list, an older record, no record: no prompt, and why.
    const rows: [string, string, string, string][] = [
      ['carries', 'case_b', 'attempt_1_0', 'the campaign record does not carry case &quot;case_b&quot;'],
      ['older', 'case_a', 'attempt_0_0', 'the campaign record does not carry the case&#39;s prompt'],
      ['ingested', 'case_a', 'attempt_0_0', 'no campaign record holds this run'],
    ];
    for (const [campaign, caseId, attempt, why] of rows) {
      const html = await page(site, campaign, caseId, 'config_a', attempt);
      expect(html, campaign).not.toContain('data-field="prompt"');
      expect(html, campaign).toContain('data-field="prompt-missing"');
      expect(html, campaign).toContain(why);
    }
    expect((await verifySite(site)).issues).toEqual([]);
  });

  it('a public site holds no byte of the prompt or the description (the suite’s, not the attempt’s)', async () => {
    const site = join(dir, 'prompts-public');
    await publishSite({ store: url, out: site, public: true });
    const bytes = await allBytes(site);
    expect(bytes).not.toContain('MARKER-PROMPT');
    expect(bytes).not.toContain('Summarise');
    expect(bytes).not.toContain('MARKER-DESCRIPTION');
  });
});

describe('the suite’s text quoted by the agent, on a public page', () => {
  // The reference runner's agent starts with `Working on: <prompt>`; an agent may quote a piece of
  // the prompt, of another case's, or the description, in another case and spacing.
  const PROMPT = 'Summarise the quarterly incident review in the brief document.';
  const DESCRIPTION = 'summarise the incident review into the brief (both models succeed)';
  const OTHER = 'Approve publishing the incident summary.';
  const QUOTES = [
    `Working on: ${PROMPT}`,
    'I will SUMMARISE   THE QUARTERLY incident\nreview now',
    `noted: ${DESCRIPTION.slice(10, 40)}`,
    `and the other case said ${OTHER}`,
  ];
  let url: string;
  const quoting = (bundle: Record<string, unknown>): Record<string, unknown> => {
    const value = structuredClone(bundle) as { events: { eventType: string; payload: { text?: string } }[] };
    let n = 0;
    for (const event of value.events)
      if (event.eventType === 'item.delta')
        event.payload.text = `${QUOTES[n++ % QUOTES.length] ?? ''} · own words ${n}`;
    return value;
  };
  beforeAll(async () => {
    url = `sqlite:${join(dir, 'quoting.sqlite')}`;
    await seedCampaigns(url, [
      {
        campaignId: 'quoted',
        minute: 1,
        record: {
          caseDefinitions: [
            { id: 'case_a', prompt: PROMPT, description: DESCRIPTION },
            { id: 'case_b', prompt: OTHER, description: null },
          ],
        },
        cases: { case_a: true, case_b: true },
        bundle: quoting,
      },
      // No record: the suite's text is unknown, so no progress text can be checked and none is published.
      { campaignId: 'unknown-suite', minute: 2, record: null, cases: { case_a: true }, bundle: quoting },
    ]);
  });

  it('the private site shows the quotes (so the grep below can fail)', async () => {
    const site = join(dir, 'quoting-private');
    await publishSite({ store: url, out: site });
    const bytes = await allBytes(site);
    expect(bytes).toContain('Working on: Summarise the quarterly incident review');
    expect(bytes).toContain('SUMMARISE   THE QUARTERLY');
  });

  it('withholds every stretch of 16 or more characters of any prompt or description, and keeps the agent’s own words', async () => {
    const site = join(dir, 'quoting-public');
    await publishSite({ store: url, out: site, public: true });
    const bytes = (await allBytes(site)).toLowerCase().replace(/\s+/g, ' ');
    const leaked = [PROMPT, DESCRIPTION, OTHER].flatMap((text) => {
      const folded = text.toLowerCase();
      return Array.from({ length: folded.length - 15 }, (_, start) => folded.slice(start, start + 16)).filter(
        (stretch) => bytes.includes(stretch),
      );
    });
    expect(leaked).toEqual([]);
    expect(bytes).toContain('working on: [suite text withheld]');
    expect(bytes).toContain('own words 1');
    expect((await verifySite(site)).issues).toEqual([]);
  });

  it('withholds the whole progress text when no campaign record carries the suite’s prompts, and says why', async () => {
    const html = await readFile(
      join(
        dir,
        'quoting-public',
        'campaigns',
        'unknown-suite',
        'attempts',
        'case_a.config_a.attempt_0_0.html',
      ),
      'utf8',
    );
    expect(html).toContain('data-field="conversation-withheld"');
    expect(html).toContain('no campaign record holds this run');
    expect(html).not.toContain('own words');
  });
});

describe('hostile ids', () => {
  it('publish every page inside the site, each its own file, and the site verifies', async () => {
    const url = `sqlite:${join(dir, 'hostile.sqlite')}`;
    const campaignId = '../../escape/..';
    await seedCampaigns(url, [
      {
        campaignId,
        minute: 1,
        cases: { '../case': true, 'a/b\\c': false, A: true, a: false, '~61~': true },
        attempt: { toolCalls: 0, deniedCalls: 0 },
      },
    ]);
    const site = join(dir, 'hostile-site');
    const result = await publishSite({ store: url, out: site });
    const files = Object.keys(await snapshotTree(site));
    expect(result.campaigns[0]?.folder).toBe('campaigns/~2e~~2e~~2f~~2e~~2e~~2f~escape~2f~~2e~~2e~');
    expect(files.every((path) => path.split('/').every((part) => part !== '..' && part !== '.'))).toBe(true);
    // 5 cases × 2 configs: 10 attempt pages and 5 case pages, none sharing a file.
    expect(files.filter((path) => path.includes('/attempts/'))).toHaveLength(10);
    expect(files.filter((path) => path.includes('/tests/'))).toHaveLength(5);
    expect((await verifySite(site)).issues).toEqual([]);
  });
});
