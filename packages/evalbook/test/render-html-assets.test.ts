// The HTML report's stylesheets and script are real files (src/report/html/replay.css, report.css,
// report.js) inlined into the page: the page holds them exactly (replay.css, then report.css), its Content-Security-Policy allows exactly
// that script, a file that would end its element early or is missing is refused, and the built
// copies the CLI runs (dist/report/html/) are the sources (a stale copy would test an old page).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

import { SummaryBuilder } from '../src/analysis/summary.ts';
import { readPageAssets } from '../src/report/html/page-assets.ts';
import { renderHtml } from '../src/report/html/render-html.ts';
import { storedAttempt } from './support/stored-attempts.ts';

const SOURCES = new URL('../src/report/html/', import.meta.url);
const BUILT = new URL('../dist/report/html/', import.meta.url);
const source = (name: string): string => readFileSync(new URL(name, SOURCES), 'utf8');

function page(): string {
  const builder = new SummaryBuilder({});
  builder.add(storedAttempt('run1', 'case', 'config', 'attempt', 'solved'));
  return renderHtml({
    title: 'assets',
    storeUrl: 'sqlite:book.sqlite',
    summary: builder.build(),
    budgets: [],
    gate: null,
    attempts: [],
  });
}

describe('the page', () => {
  const html = page();

  it('inlines replay.css, report.css and report.js exactly, one executable script', () => {
    expect(/<style>([\s\S]*?)<\/style>/.exec(html)?.[1]).toBe(source('replay.css') + source('report.css'));
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]);
    expect(scripts).toEqual([source('report.js')]);
  });

  it("allows exactly that script in its CSP (the sha256 of the file's text)", () => {
    const digest = createHash('sha256').update(source('report.js')).digest('base64');
    const attribute = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? '';
    const csp = attribute.replaceAll('&#39;', "'");
    expect(csp).toContain(`script-src 'sha256-${digest}';`);
    expect(csp).toContain("default-src 'none'");
  });

  it('gives the script its text limit in the embedded data', () => {
    const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect((JSON.parse(data) as { textLimit: unknown }).textLimit).toBe(500);
  });
});

describe('readPageAssets (mutation rows: a broken asset folder is refused)', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  const folderWith = (files: Record<string, string>): URL => {
    const folder = mkdtempSync(join(tmpdir(), 'report-assets-'));
    folders.push(folder);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    return pathToFileURL(`${folder}/`);
  };
  const css = 'body{margin:0}';
  const js = "(() => { 'use strict'; })();";
  const replayCss = '.replay{margin:0}';

  it('reads a sound folder', () => {
    const assets = readPageAssets(
      folderWith({ 'replay.css': replayCss, 'report.css': css, 'report.js': js, 'clip.js': js }),
    );
    expect(assets).toEqual({
      style: replayCss + css,
      script: js,
      scriptSha256: createHash('sha256').update(js).digest('base64'),
      replayStyle: replayCss,
      replayStyleSha256: createHash('sha256').update(replayCss).digest('base64'),
      clipScript: js,
      clipScriptSha256: createHash('sha256').update(js).digest('base64'),
    });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'report.js missing',
      { 'clip.js': js, 'replay.css': replayCss, 'report.css': css },
      /report\.js is missing/,
    ],
    [
      'report.css missing',
      { 'clip.js': js, 'replay.css': replayCss, 'report.js': js },
      /report\.css is missing/,
    ],
    ['replay.css missing', { 'clip.js': js, 'report.css': css, 'report.js': js }, /replay\.css is missing/],
    [
      'a script that ends its element',
      { 'clip.js': js, 'replay.css': replayCss, 'report.css': css, 'report.js': "x('</script>')" },
      /<\/script/,
    ],
    [
      'the same, in capitals',
      { 'clip.js': js, 'replay.css': replayCss, 'report.css': css, 'report.js': "x('</SCRIPT >')" },
      /<\/script/,
    ],
    [
      'a stylesheet that ends its element',
      { 'clip.js': js, 'replay.css': replayCss, 'report.css': 'a{}</style><b>', 'report.js': js },
      /<\/style/,
    ],
    [
      'clip.js missing',
      { 'replay.css': replayCss, 'report.css': css, 'report.js': js },
      /clip\.js is missing/,
    ],
    [
      'a clip script that ends its element',
      { 'clip.js': "x('</script>')", 'replay.css': replayCss, 'report.css': css, 'report.js': js },
      /<\/script/,
    ],
    [
      "the replay's stylesheet ending its element",
      { 'clip.js': js, 'replay.css': 'a{}</STYLE><b>', 'report.css': css, 'report.js': js },
      /<\/style/,
    ],
  ])('refuses %s', (_name, files, message) => {
    expect(() => readPageAssets(folderWith(files))).toThrow(message);
  });
});

describe('the built copies', () => {
  it.each(['replay.css', 'report.css', 'report.js', 'clip.js'])(
    'dist holds %s as the sources do (run the build after an edit)',
    (name) => {
      expect(readFileSync(new URL(name, BUILT), 'utf8')).toBe(source(name));
    },
  );
});
