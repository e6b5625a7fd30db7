// The suite's own text kept out of a public site (issue 19, `evals publish --public`): a case's prompt
// and description are the eval set, and an agent's progress text quotes them (the reference runner's
// first step is `Working on: <prompt>`). suiteTextRedactor(texts) returns the one function a public
// text goes through: every stretch of it that is also a stretch of SUITE_TEXT_MIN_CHARS or more
// characters of a suite text (compared lower-cased, runs of white space as one space), and every
// whole occurrence of a shorter suite text, becomes SUITE_TEXT_MASK. A look-alike that is not the
// suite's is withheld too: the safe mistake. Pure, and linear in the text (one set lookup a character).

/** The shortest stretch of a suite text that counts as quoting it (about three words). */
export const SUITE_TEXT_MIN_CHARS = 16;

/** What a withheld stretch of suite text reads as on a public page. */
export const SUITE_TEXT_MASK = '[suite text withheld]';

/** A public text with every stretch of the suite's text withheld. */
export type SuiteTextRedactor = (text: string) => string;

/** The text lower-cased and each run of white space one space, with where each character came from. */
interface Folded {
  readonly text: string;
  /** For each folded character, the original range [from, to) it stands for. */
  readonly from: readonly number[];
  readonly to: readonly number[];
}

function fold(text: string): Folded {
  let folded = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (/\s/.test(char)) {
      if (folded.endsWith(' ') && to.length > 0) {
        to[to.length - 1] = index + 1;
        continue;
      }
      folded += ' ';
    } else {
      const lower = char.toLowerCase();
      // A character whose lower case is longer (İ) stays as it is: one folded character each.
      folded += lower.length === 1 ? lower : char;
    }
    from.push(index);
    to.push(index + 1);
  }
  return { text: folded, from, to };
}

const WORD = /[\p{L}\p{N}]/u;

/**
 * The redactor of `texts` (each case's prompt and description a campaign record carries). Texts
 * that are empty or white space are ignored.
 */
export function suiteTextRedactor(texts: readonly string[]): SuiteTextRedactor {
  const stretches = new Set<string>();
  const whole = new Set<string>();
  for (const text of texts) {
    const folded = fold(text.trim()).text;
    if (folded === '') continue;
    if (folded.length < SUITE_TEXT_MIN_CHARS) whole.add(folded);
    else
      for (let start = 0; start + SUITE_TEXT_MIN_CHARS <= folded.length; start++)
        stretches.add(folded.slice(start, start + SUITE_TEXT_MIN_CHARS));
  }
  if (stretches.size === 0 && whole.size === 0) return (text) => text;
  return (text) => {
    const folded = fold(text);
    const ranges: [number, number][] = [];
    const cover = (start: number, end: number): void => {
      const last = ranges.at(-1);
      if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
      else ranges.push([start, end]);
    };
    const found: [number, number][] = [];
    for (let start = 0; start + SUITE_TEXT_MIN_CHARS <= folded.text.length; start++)
      if (stretches.has(folded.text.slice(start, start + SUITE_TEXT_MIN_CHARS)))
        found.push([start, start + SUITE_TEXT_MIN_CHARS]);
    for (const short of whole)
      for (let at = folded.text.indexOf(short); at >= 0; at = folded.text.indexOf(short, at + 1)) {
        // Whole words only: a short text inside a longer word is not a quotation of it.
        const before = folded.text.charAt(at - 1);
        const after = folded.text.charAt(at + short.length);
        if ((before === '' || !WORD.test(before)) && (after === '' || !WORD.test(after)))
          found.push([at, at + short.length]);
      }
    if (found.length === 0) return text;
    for (const [start, end] of found.sort((a, b) => a[0] - b[0] || a[1] - b[1])) cover(start, end);
    let out = '';
    let done = 0;
    for (const [start, end] of ranges) {
      const from = folded.from[start] ?? text.length;
      const to = folded.to[end - 1] ?? text.length;
      out += `${text.slice(done, from)}${SUITE_TEXT_MASK}`;
      done = to;
    }
    return `${out}${text.slice(done)}`;
  };
}
