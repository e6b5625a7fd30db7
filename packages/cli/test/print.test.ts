// The CLI's printer: human lines are rendered by terminalText (a newline or ESC inside a line is shown,
// never acted on; our own colours survive), and it is the only file of the CLI that writes to stdout
// or stderr, so no command can print text from input around it.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { styleText } from 'node:util';
import { describe, expect, it } from 'vitest';

import {
  clearProgress,
  colours,
  drawProgress,
  humanText,
  padShown,
  painted,
  printDocument,
  printJson,
  printLines,
  printLogLine,
  setOutputSink,
  shownWidth,
} from '../src/print.ts';

import type { OutputSink } from '../src/print.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

describe('humanText', () => {
  it('renders each line, so a line break or escape from input stays on its line, shown', () => {
    expect(humanText(['a\n::error::forged', 'b\u001b[31m'], false)).toBe(
      'a\\n::error::forged\nb\\u001b[31m\n',
    );
  });

  it('neutralises a workflow command at the start of a line, also across plain parts', () => {
    expect(humanText([['  ', '::add-mask::secret']], false)).toBe('  \\u003a:add-mask::secret\n');
    expect(humanText([['x #', '#[set-output name=a]b']], false)).toBe('x \\u0023#[set-output name=a]b\n');
  });

  it('colours painted labels only when asked, and renders their text too', () => {
    const line = [painted('red', 'invalid'), '  case\u001b[0m'];
    expect(humanText([line], false)).toBe('invalid  case\\u001b[0m\n');
    expect(humanText([line], true)).toBe(`${styleText('red', 'invalid')}  case\\u001b[0m\n`);
  });

  it('pads by the width a text is shown with', () => {
    expect(shownWidth('a\u001b')).toBe('a\\u001b'.length);
    expect(padShown('a\u001b', 10)).toBe(`a\u001b${' '.repeat(10 - 7)}`);
  });
});

describe('setOutputSink', () => {
  it('takes everything printed, asks it whether a stream is a terminal, and gives the streams back', async () => {
    const written: [string, string][] = [];
    const sink: OutputSink = {
      write: (stream, text, done) => {
        written.push([stream, text]);
        done?.();
      },
      isTerminal: (stream) => stream === 'stderr',
    };
    const previous = setOutputSink(sink);
    try {
      printLines('stdout', ['a\u001b']);
      printJson({ b: 1 }, 0);
      await printDocument('doc');
      drawProgress({ label: 'progress', parts: [] });
      clearProgress();
      expect(colours('stdout')).toBe(false);
      expect(colours('stderr')).toBe(process.env.NO_COLOR === undefined);
    } finally {
      expect(setOutputSink(previous)).toBe(sink);
    }
    expect(written).toEqual([
      ['stdout', 'a\\u001b\n'],
      ['stdout', '{"b":1}\n'],
      ['stdout', 'doc'],
      ['stderr', '\r\u001b[Kprogress'],
      ['stderr', '\r\u001b[K'],
    ]);
  });
});

describe('the progress line has one owner: every other text clears it first and draws it again after', () => {
  const collect = (terminal: boolean): { written: [string, string][]; sink: OutputSink } => {
    const written: [string, string][] = [];
    return {
      written,
      sink: {
        write: (stream, text, done) => {
          written.push([stream, text]);
          done?.();
        },
        isTerminal: (stream) => terminal && stream === 'stderr',
      },
    };
  };
  const ERASE = '\r\u001b[K';

  it('on a terminal: a message, a log line, JSON and a document never glue to the drawn line', async () => {
    const { written, sink } = collect(true);
    const previous = setOutputSink(sink);
    try {
      drawProgress({ label: 'run', parts: ['1/3 done', 'spend $0.01'] });
      printLines('stderr', ['evals: campaign recorded in the ledger']);
      printLogLine('{"level":"info"}\n');
      printJson({ a: 1 }, 0);
      await printDocument('doc');
      clearProgress();
      printLines('stderr', ['after']);
    } finally {
      setOutputSink(previous);
    }
    const line = `${ERASE}run: 1/3 done · spend $0.01`;
    expect(written).toEqual([
      ['stderr', line],
      ['stderr', ERASE],
      ['stderr', 'evals: campaign recorded in the ledger\n'],
      ['stderr', line],
      ['stderr', ERASE],
      ['stderr', '{"level":"info"}\n'],
      ['stderr', line],
      ['stderr', ERASE],
      ['stdout', '{"a":1}\n'],
      ['stderr', line],
      ['stderr', ERASE],
      ['stdout', 'doc'],
      ['stderr', line],
      ['stderr', ERASE],
      ['stderr', 'after\n'],
    ]);
    // Whatever the order, the text a terminal shows ends every message on its own line.
    const shown = written.map(([, text]) => text).join('');
    expect(shown).not.toMatch(/spend \$0\.01evals|spend \$0\.01\{/);
  });

  it('off a terminal: no progress line is drawn, and messages go out as they are', () => {
    const { written, sink } = collect(false);
    const previous = setOutputSink(sink);
    try {
      drawProgress({ label: 'run', parts: ['1/3'] });
      printLines('stderr', ['message']);
      clearProgress();
    } finally {
      setOutputSink(previous);
    }
    expect(written).toEqual([['stderr', 'message\n']]);
  });
});

describe('the printer is the one writer', () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );

  it.each(files.filter((file) => file !== 'print.ts'))(
    '%s writes to stdout and stderr only through print.ts',
    (file) => {
      const source = readFileSync(join(SRC, file), 'utf8');
      expect(source, relative(SRC, join(SRC, file))).not.toMatch(
        /process\.(stdout|stderr)\.write|console\.(log|error|warn|info)|\b(stdout|stderr)\.write\(/,
      );
    },
  );
});

describe('printJson', () => {
  it('masks a strict-secret member of the document whole, and keeps our own fields', () => {
    const written: string[] = [];
    const previous = setOutputSink({
      write: (_stream, text, done) => (written.push(text), done?.()),
      isTerminal: () => false,
    });
    try {
      printJson(
        { received: { password: 'hunter2-x', PGPASSWORD: 'p', attemptKey: 'a/b', outputTokens: 7 } },
        0,
      );
    } finally {
      setOutputSink(previous);
    }
    expect(written).toEqual([
      '{"received":{"password":"***","PGPASSWORD":"***","attemptKey":"a/b","outputTokens":7}}\n',
    ]);
  });
});
