// The one place `evals` writes to stdout and stderr. Human text goes through printLines, which renders
// every line with contract's terminalText: text from input (bundle contents, file names, environment
// files, runnerd's and producers' output, store contents) never reaches a terminal or a CI log raw,
// and the only control characters written are our own line breaks, the colours of our own labels
// and the progress line. JSON goes out as contract's jsonText, documents (a report on stdout) as
// they are. A test (packages/cli/test/print.test.ts) keeps every other file from writing to them.
// Everything goes through one sink, this process's streams unless setOutputSink() names another
// (the in-process program tests collect it there).
import { styleText } from 'node:util';
import { jsonText, maskSecrets, maskSecretsIn, secretsIn, terminalText } from '@paperclip-evals/contract';

import { DEFAULT_COLUMNS, fitProgress } from './progress.js';
import { displayWidth } from './width.js';

import type { ProgressLine } from './progress.js';

/**
 * The secrets this process was given, for masking what it says about a failure: the passwords and
 * tokens of every locator on its command line (--store, --from-store, …), and the credentials in its environment
 * (PGPASSWORD, the checks engine's provider API key and base URL).
 */
export function processSecrets(
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  // Every argument that may be a locator (--store, --from-store, an environment's URL, …): a value
  // with no URL password and no secret-named parameter yields none.
  const locators = argv.map((arg) => arg.replace(/^--[\w-]+=/, ''));
  // The values of the variables --pass-env hands a session (provider keys): secrets by their name's
  // say-so, wherever a message quotes one (a key pasted as an argument after its name).
  const passed = argv.flatMap((arg, index) =>
    arg === '--pass-env' ? [argv[index + 1] ?? ''] : arg.startsWith('--pass-env=') ? [arg.slice(11)] : [],
  );
  return [
    ...passed.map((name) => env[name] ?? ''),
    ...locators.flatMap(secretsIn),
    ...secretsIn(env.EVALS_ENGINE_PROVIDER_BASE_URL ?? ''),
    env.EVALS_ENGINE_PROVIDER_API_KEY ?? '',
    env.PGPASSWORD ?? '',
  ].filter((secret) => secret !== '');
}

/** The shortest known secret masked wherever it occurs in what is printed (a shorter one only where a locator holds it). */
const MIN_SECRET_CHARS = 4;

/**
 * The process's secrets as every printed text masks them: one of a few characters (a password `p`)
 * would mask every `p` of every line, so it is masked only where maskSecrets' locator patterns find
 * it (`postgres://u:***@h`), as any password is.
 */
const printedSecrets = (): string[] => processSecrets().filter((secret) => secret.length >= MIN_SECRET_CHARS);

/** The colours of our labels. */
export type Style = 'green' | 'red' | 'yellow' | 'dim';

/** A label of ours (a status word, a count), coloured when the stream is a terminal and NO_COLOR is unset. */
export interface Painted {
  readonly style: Style;
  readonly text: string;
}

export const painted = (style: Style, text: string): Painted => ({ style, text });

/** One line of human text: a string, or parts of which some are painted. A line holds no line break of ours. */
export type Line = string | readonly (string | Painted)[];

export type Stream = 'stdout' | 'stderr';

/**
 * Where the printer's text goes: this process's stdout and stderr, or (in tests of the in-process
 * program) a sink that collects it. `write` calls `done` once the text is handed on.
 */
export interface OutputSink {
  write(stream: Stream, text: string, done?: (error?: Error | null) => void): void;
  /** Whether the stream is a terminal (progress lines and colours are drawn only there). */
  isTerminal(stream: Stream): boolean;
  /** How many columns wide the terminal is (undefined: it does not say; DEFAULT_COLUMNS is assumed). */
  columns?(stream: Stream): number | undefined;
  /** Calls `listener` whenever stderr's terminal is resized; returns what stops it. */
  onResize?(listener: () => void): () => void;
}

const streamOf = (stream: Stream): NodeJS.WriteStream =>
  stream === 'stdout' ? process.stdout : process.stderr;

const PROCESS_SINK: OutputSink = {
  write: (stream, text, done) => {
    streamOf(stream).write(text, done);
  },
  isTerminal: (stream) => streamOf(stream).isTTY,
  columns: (stream) => streamOf(stream).columns,
  onResize: (listener) => {
    process.stderr.on('resize', listener);
    return () => process.stderr.off('resize', listener);
  },
};

let sink: OutputSink = PROCESS_SINK;

/**
 * The progress line drawn on stderr now (drawProgress's line), or null. This file is the one writer
 * that owns it: every other text — a message on stderr, a line or document on stdout, which share
 * the terminal — first clears it, then draws it again after, so nothing is ever glued to it.
 */
let shownProgress: ProgressLine | null = null;

/** Stops the resize listener drawProgress set (while a progress line is shown). */
let stopResize: (() => void) | null = null;

/** The line's own erase: back to its start, cleared to the end. */
const ERASE_LINE = '\r\x1b[K';

/**
 * The progress line as written: the erase, then the line (its label and parts rendered by
 * terminalText) fitted to stderr's width as it is now (re-read at every draw, so a resize is followed).
 */
function progressDrawing(line: ProgressLine): string {
  const columns = sink.columns?.('stderr');
  const shown = { label: terminalText(line.label), parts: line.parts.map((part) => terminalText(part)) };
  return ERASE_LINE + fitProgress(shown, columns !== undefined && columns > 0 ? columns : DEFAULT_COLUMNS);
}

/** Writes `text` to `stream` around the progress line: cleared before, drawn again after. */
function write(stream: Stream, text: string, done?: (error?: Error | null) => void): void {
  if (shownProgress === null) {
    sink.write(stream, text, done);
    return;
  }
  const line = shownProgress;
  sink.write('stderr', ERASE_LINE);
  sink.write(stream, text, done);
  sink.write('stderr', progressDrawing(line));
}

/** Sends everything printed to `next` (undefined: this process's streams again); returns the sink it replaces. */
export function setOutputSink(next: OutputSink | undefined): OutputSink {
  const previous = sink;
  stopResize?.();
  stopResize = null;
  sink = next ?? PROCESS_SINK;
  shownProgress = null;
  return previous;
}

/** Whether `stream` is a terminal. */
export const isTerminal = (stream: Stream): boolean => sink.isTerminal(stream);

/** Whether painted parts are coloured on this stream. */
export const colours = (stream: Stream): boolean => process.env.NO_COLOR === undefined && isTerminal(stream);

/**
 * The lines as the text written: each plain run of a line rendered by terminalText (a newline or
 * escape inside it is shown, never acted on), each painted part coloured when `colour`, and a
 * newline after every line.
 */
export function humanText(lines: readonly Line[], colour: boolean): string {
  return lines.map((line) => `${renderLine(line, colour)}\n`).join('');
}

function renderLine(line: Line, colour: boolean): string {
  if (typeof line === 'string') return terminalText(line);
  let shown = '';
  let run: string | undefined;
  for (const part of line) {
    if (typeof part === 'string') {
      // Plain parts next to each other are one run, so a command prefix split across them is seen.
      run = (run ?? '') + part;
      continue;
    }
    if (run !== undefined) shown += terminalText(run);
    run = undefined;
    const text = terminalText(part.text);
    shown += colour ? styleText(part.style, text) : text;
  }
  return run === undefined ? shown : shown + terminalText(run);
}

/**
 * Writes human text, one line each (see humanText), every secret masked (contract's maskSecrets with
 * the process's own secrets): a path or locator the user gave that holds a password
 * (`postgres://u:PW@h/db` named as an input) is never echoed, in a table or in a message.
 */
export function printLines(stream: Stream, lines: readonly Line[]): void {
  write(stream, maskSecrets(humanText(lines, colours(stream)), printedSecrets()));
}

/**
 * Writes text someone else laid out in lines (commander's usage errors): each of its lines is
 * rendered as printLines renders one.
 */
export function printText(stream: Stream, text: string): void {
  printLines(stream, text.replace(/\n$/, '').split('\n'));
}

/**
 * Writes text of ours as it is: commander's help and --version, built only from this program's
 * flag tables and descriptions (a `\` in an example is a `\`). Never text that holds input.
 */
export function printOwnText(stream: Stream, text: string): void {
  write(stream, text);
}

/**
 * Writes one JSON document on stdout (contract's jsonText: exact JSON, safe in a terminal), then a
 * newline; indented by `space` (0: on one line). Every string is masked as printLines masks a line.
 */
export function printJson(value: unknown, space = 2): void {
  write('stdout', `${jsonText(maskSecretsIn(value, printedSecrets()), space)}\n`);
}

/** Writes JSON text already made (by failureJson) on stdout as it is. */
export function printJsonText(json: string): void {
  write('stdout', json);
}

/** Writes one JSON log line on stderr as it is (the checks engine's jsonLogger, which writes it with jsonText). */
export function printLogLine(line: string): void {
  write('stderr', line);
}

/** Writes a chunk of a document (a report on stdout) as it is, resolving once it is handed on. */
export function printDocument(chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    write('stdout', chunk, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
}

/**
 * Draws our progress line (progress.ts's line: counts, rates, phases) over the last on stderr, when
 * stderr is a terminal (elsewhere nothing: a log gets plain lines instead), never wider than the
 * terminal (fitProgress; drawn again, fitted anew, when the terminal is resized); it stays this
 * file's to clear before anything else is written.
 */
export function drawProgress(line: ProgressLine): void {
  if (!isTerminal('stderr')) return;
  sink.write('stderr', progressDrawing(line));
  shownProgress = line;
  stopResize ??=
    sink.onResize?.(() => {
      if (shownProgress !== null) sink.write('stderr', progressDrawing(shownProgress));
    }) ?? null;
}

/** Clears the progress line, when one is drawn (then nothing is redrawn after the next text). */
export function clearProgress(): void {
  stopResize?.();
  stopResize = null;
  if (shownProgress === null && !isTerminal('stderr')) return;
  if (isTerminal('stderr')) sink.write('stderr', ERASE_LINE);
  shownProgress = null;
}

/** How many columns `text` takes once rendered (for padding table columns): wide characters 2, combining marks 0. */
export const shownWidth = (text: string): number => displayWidth(terminalText(text));

/** `text` padded with spaces to `width` rendered characters. */
export const padShown = (text: string, width: number): string =>
  text + ' '.repeat(Math.max(0, width - shownWidth(text)));
