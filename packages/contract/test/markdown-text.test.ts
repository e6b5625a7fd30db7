// markdownText, the one Markdown escaping function: what it writes for each kind of hostile text, and
// that ordinary ids stay readable in the raw Markdown (a terminal, an e-mail's text part). That the
// escaped text renders as itself in every place of the report is proven with a real GFM renderer in
// packages/evalbook/test/render-markdown.test.ts.
import { describe, expect, it } from 'vitest';

import { markdownText } from '../src/markdown-text.ts';

const Z = '\u200b';

describe('markdownText', () => {
  it.each([
    ['config_a', 'config_a'],
    ['2026-11-01T12:00:00.000Z', '2026-11-01T12:00:00.000Z'],
    ['sha256:0f3a', 'sha256:0f3a'],
    ['run-1.attempt (2)', 'run-1.attempt (2)'],
    ['<img src=x onerror=alert(1)>', '\\<img src=x onerror=alert(1)\\>'],
    ['[x](javascript:alert(1))', '\\[x\\](javascript:alert(1))'],
    ['a | b \\ c', 'a \\| b \\\\ c'],
    ['*em* _em_ ~s~ `c` $m$ &amp;', '\\*em\\* \\_em\\_ \\~s\\~ \\`c\\` \\$m\\$ \\&amp;'],
    ['snake_case', 'snake_case'],
    ['_lead trail_', '\\_lead trail\\_'],
    ['@octocat', `@${Z}octocat`],
    ['me@evil.example', `me@${Z}evil.example`],
    ['#123 title #', `\\#${Z}123 title \\#${Z}`],
    ['GH-12', `GH${Z}-12`],
    ['https://evil.example', `https:${Z}//evil.example`],
    ['www.evil.example', `www${Z}.evil.example`],
    [':shipit:', `:${Z}shipit:`],
    ['a\r| forged | row', 'a\\\\u000d\\| forged \\| row'],
    ['a\n# h', `a\\\\u000a\\#${Z} h`],
    ['\u2028\u202e\u0000\u001b\t', '\\\\u2028\\\\u202e\\\\u0000\\\\u001b\\\\u0009'],
    ['\ud800 \udc00 \ud83d\ude00', '\\\\ud800 \\\\udc00 \ud83d\ude00'],
    ['  padded  ', '&#32;&#32;padded&#32;&#32;'],
  ])('%j → %j', (input, expected) => {
    expect(markdownText(input)).toBe(expected);
  });
});
