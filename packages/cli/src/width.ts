// How many terminal columns text takes, and text cut to fit a number of columns: for the progress
// line (never wider than the terminal, or each redraw leaves a wrapped row behind) and for padding
// table columns. Counted per grapheme (what a terminal draws as one character): a wide East Asian
// character or an emoji takes 2 columns, a combining mark 0 (it joins the character before), the rest
// 1. Text from input is rendered by terminalText before it is measured, so what is counted is what
// is shown.

const segmenter = new Intl.Segmenter();

/** A code point a terminal draws 2 columns wide: East Asian Wide and Fullwidth (wcwidth's table) and emoji presentation. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}\p{Emoji_Presentation}\ufe0f]/u;

/** A grapheme drawn in no column of its own: only combining marks (and other zero-width code points). */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

const graphemeWidth = (grapheme: string): number =>
  WIDE.test(grapheme) ? 2 : ZERO_WIDTH.test(grapheme) ? 0 : 1;

/** The columns `text` takes on a terminal (text as it is written: render text from input first). */
export function displayWidth(text: string): number {
  // Printable ASCII, the common case, is one column a character.
  if (/^[ -~]*$/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
  return width;
}

const ELLIPSIS = '…';

/** `text` cut at its end to at most `columns` columns, a `…` marking the cut (as it is when it fits). */
export function cutEnd(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  if (columns <= 0) return '';
  let kept = '';
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    const next = graphemeWidth(segment);
    if (width + next > columns - 1) break;
    kept += segment;
    width += next;
  }
  return kept + ELLIPSIS;
}

/**
 * `text` cut in its middle to at most `columns` columns (its start and end kept, a `…` between):
 * for a name whose both ends tell it apart (a campaign id `demo-20261203-999999`).
 */
export function cutMiddle(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  if (columns <= 1) return cutEnd(text, columns);
  const graphemes = [...segmenter.segment(text)].map(({ segment }) => segment);
  const room = columns - 1;
  let head = '';
  let headWidth = 0;
  for (const grapheme of graphemes) {
    const next = graphemeWidth(grapheme);
    if (headWidth + next > Math.ceil(room / 2)) break;
    head += grapheme;
    headWidth += next;
  }
  let tail = '';
  let tailWidth = 0;
  for (const grapheme of [...graphemes].reverse()) {
    const next = graphemeWidth(grapheme);
    if (headWidth + tailWidth + next > room) break;
    tail = grapheme + tail;
    tailWidth += next;
  }
  return head + ELLIPSIS + tail;
}
