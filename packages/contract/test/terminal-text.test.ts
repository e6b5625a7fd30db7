// terminalText and jsonText: properties over strings built from hostile pieces (ESC sequences, CR,
// LF, bidi overrides, line separators, lone surrogates, workflow-command prefixes, backslashes and
// escape look-alikes) and from any code points — nothing a terminal or a CI log reader acts on ever
// comes out, and distinct strings stay distinct — then a table of the renderings the docs promise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { jsonText, terminalText } from '../src/terminal-text.ts';

/** Every character a terminal or a log reader may act on: controls, format characters, separators, lone surrogates. */
const ACTED_ON = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** A workflow command GitHub's runner would read: `::` after leading white space, `##[` or `##vso[` anywhere. */
const WORKFLOW_COMMAND = /^\s*::|##\[|##vso\[/iu;
/** Every way a terminal, the runner or a log viewer may break a line. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/u;

const HOSTILE_PIECES = [
  '\u001b',
  '\u001b[31m',
  '\u001b]8;;http://x\u0007',
  '\u009b',
  '\u007f',
  '\u0000',
  '\r',
  '\n',
  '\t',
  '\r::add-mask::secret',
  '\n::error::forged',
  '::',
  ':',
  '#',
  '##[',
  '##vso[',
  '##VSO[',
  '[',
  '::set-output name=x::y',
  '::stop-commands::token',
  '::warning::',
  '::group::',
  ' ',
  '\u00a0',
  '\u3000',
  '\u2003',
  '\ufeff',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u200b',
  '\u2028',
  '\u2029',
  '\u{e0041}',
  '\ud800',
  '\udc00',
  '\\',
  '\\u001b',
  'u001b',
  '\\\\',
  '\\n',
  '\\u003a',
  'a',
  'é',
  '😀',
];

const hostileText = fc.oneof(
  fc.array(fc.constantFrom(...HOSTILE_PIECES), { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: 'binary', maxLength: 4 })), {
      maxLength: 10,
    })
    .map((pieces) => pieces.join('')),
);

/** Reads terminalText's escapes back (the JSON string-literal escapes it writes). */
function readBack(shown: string): string {
  const short: Record<string, string> = { '\\': '\\', b: '\b', t: '\t', n: '\n', f: '\f', r: '\r' };
  return shown.replace(/\\(u[0-9a-f]{4}|[\\btnfr])/g, (_match, escape: string) =>
    escape.length === 5 ? String.fromCharCode(Number.parseInt(escape.slice(1), 16)) : (short[escape] ?? ''),
  );
}

describe('terminalText', () => {
  it('never writes a character a terminal or log reader acts on', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(terminalText(text)).not.toMatch(ACTED_ON);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes one line, which never holds a workflow command', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const shown = terminalText(text);
        expect(shown.split(LINE_BREAK)).toHaveLength(1);
        expect(shown).not.toMatch(WORKFLOW_COMMAND);
      }),
      { numRuns: 2000 },
    );
  });

  it('no line of text made of renderings and our own line breaks starts a workflow command', () => {
    fc.assert(
      fc.property(fc.array(hostileText, { maxLength: 6 }), (texts) => {
        for (const line of texts.map(terminalText).join('\n').split('\n'))
          expect(line).not.toMatch(WORKFLOW_COMMAND);
      }),
    );
  });

  it('is reversible: the escapes read back give the text, so distinct texts are shown distinctly', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(readBack(terminalText(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(hostileText, hostileText, (a, b) => {
        fc.pre(a !== b);
        expect(terminalText(a)).not.toBe(terminalText(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps printable text, non-ASCII included, as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        fc.pre(!ACTED_ON.test(text) && !text.includes('\\') && !WORKFLOW_COMMAND.test(text));
        expect(terminalText(text)).toBe(text);
      }),
    );
  });

  it.each([
    ['case\u001b[31mred', 'case\\u001b[31mred'],
    ['a\u001b]8;;http://x\u0007link', 'a\\u001b]8;;http://x\\u0007link'],
    ['id\r::add-mask::secret', 'id\\r::add-mask::secret'],
    ['id\n::error::forged', 'id\\n::error::forged'],
    ['::error::forged', '\\u003a:error::forged'],
    ['  \u3000::stop-commands::t', '  \u3000\\u003a:stop-commands::t'],
    ['x ##[add-mask]secret', 'x \\u0023#[add-mask]secret'],
    ['x ##vso[task.setvariable]y', 'x \\u0023#vso[task.setvariable]y'],
    ['rtl\u202eevil\u2069', 'rtl\\u202eevil\\u2069'],
    ['line\u2028sep', 'line\\u2028sep'],
    ['csi\u009b31m', 'csi\\u009b31m'],
    ['tag\u{e0041}', 'tag\\udb40\\udc41'],
    ['lone\ud800', 'lone\\ud800'],
    ['back\\slash', 'back\\\\slash'],
    ['plain case_01 · café ↔ 😀', 'plain case_01 · café ↔ 😀'],
    ['a:b :: c ## [d]', 'a:b :: c ## [d]'],
  ])('shows %j as %j', (text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });
});

describe('jsonText', () => {
  it('parses to the same value and holds nothing a terminal or log reader acts on', () => {
    fc.assert(
      fc.property(
        fc.dictionary(hostileText, fc.oneof(hostileText, fc.integer())),
        fc.boolean(),
        (value, pretty) => {
          const json = jsonText(value, pretty ? 2 : undefined);
          expect(JSON.parse(json)).toEqual(value);
          for (const line of json.split('\n')) {
            expect(line).not.toMatch(ACTED_ON);
            expect(line).not.toMatch(WORKFLOW_COMMAND);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('escapes what JSON.stringify leaves raw: DEL, C1, bidi overrides, U+2028 and U+2029', () => {
    const value = { id: '\u007f\u009b\u202e\u2028\u2029##[x]' };
    expect(JSON.stringify(value)).toMatch(/[\u007f\u009b\u202e\u2028\u2029]/u);
    expect(jsonText(value)).toBe('{"id":"\\u007f\\u009b\\u202e\\u2028\\u2029\\u0023#[x]"}');
  });

  it('refuses what is not JSON', () => {
    expect(() => jsonText(undefined)).toThrow(TypeError);
  });
});
