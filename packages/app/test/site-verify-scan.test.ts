// `--verify`'s fast paths (docs/benchmarks.md Run 11) read a page as its regexes did: the tags with
// an `=` found by indexOf are those /<[a-zA-Z][^>]*>/g matches and that hold one, for any text of
// markup pieces (unclosed tags, `<` in text, `=` outside tags, upper case); and a page's content
// issues are the same whether its bytes are ASCII (read as Latin-1) or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { attributedTags, checkContent } from '../src/site/verify.ts';

const piece = fc.constantFrom(
  '<a href="x.html">',
  '</a>',
  '<p>',
  '<P CLASS=x>',
  '<br/>',
  '<img alt="" src="y.png"',
  '<',
  '>',
  '=',
  ' a=b ',
  '<1>',
  '< a=1>',
  '<td style="background:hsl(0 1% 2%)" title="a=b">',
  '<a\nhref=z>',
  'text',
  '&quot;',
  '<!-- c=d -->',
  '<meta http-equiv="refresh" content="0; url=x">',
);

describe('attributedTags', () => {
  it('finds the tags the tag regex finds that hold an =, in order', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const markup = pieces.join('');
        const expected = [...markup.matchAll(/<[a-zA-Z][^>]*>/g)]
          .map((match) => match[0])
          .filter((tag) => tag.includes('='));
        expect(attributedTags(markup)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('checkContent', () => {
  const scripts = new Set<string>();
  const all = new Set(['campaigns/c/x.html']);
  it.each([
    ['a javascript: URL', '<a href="javascript:alert(1)">x</a>', 'site_script_foreign'],
    ['a javascript: URL with a tab', '<a href="java\tscript:alert(1)">x</a>', 'site_script_foreign'],
    ['a javascript: URL by a reference', '<a href="javascript&colon;alert(1)">x</a>', 'site_script_foreign'],
    ['a remote style', '<p STYLE="background:url(https://e.com/a.png)">x</p>', 'site_remote_resource'],
    ['a broken link', '<a href="y.html">y</a>', 'site_link_broken'],
  ])('%s is found, in an ASCII page and in one with other text', (_name, html, code) => {
    for (const text of [`<p>plain</p>${html}`, `<p>caf\u00e9 \u2014 na\u00efve</p>${html}`]) {
      const issues = checkContent('campaigns/c/x.html', Buffer.from(text), all, scripts);
      expect(issues.map((found) => found.code)).toEqual([code]);
    }
  });

  it('reads a page that is not ASCII as UTF-8: its link to a file of the site resolves', () => {
    const page = Buffer.from('<p>caf\u00e9</p><a href="caf\u00e9.html">x</a>');
    const site = new Set(['campaigns/c/x.html', 'campaigns/c/caf\u00e9.html']);
    expect(checkContent('campaigns/c/x.html', page, site, scripts)).toEqual([]);
  });
});
