// `evals --help` teaches a new user: where to start (examples of real commands, where the reading
// commands find the Evalbook) and every exit code any command gives, from the one table.
import { describe, expect, it } from 'vitest';

import type { Command } from 'commander';
import { DEFAULT_STORE_URL } from '@paperclip-evals/evalbook';

import { EXIT, POLICY_REPLAY_EXIT } from '../src/exit-codes.ts';
import { createProgram, runProgram } from '../src/program.ts';
import { setOutputSink } from '../src/print.ts';

async function rootHelp(): Promise<string> {
  return helpOf([]);
}

/** `evals ...path --help` in-process: what it printed on stdout (not a terminal: 80 columns). */
async function helpOf(path: readonly string[]): Promise<string> {
  let stdout = '';
  const previous = setOutputSink({
    write: (stream, text, done) => {
      if (stream === 'stdout') stdout += text;
      done?.();
    },
    isTerminal: () => false,
  });
  try {
    expect(await runProgram(['node', 'evals', ...path, '--help'], createProgram())).toBe(0);
    return stdout;
  } finally {
    setOutputSink(previous);
  }
}

/** Every command of the tree, as the words that name it (`['policy', 'replay']`). */
const commandPaths = (command: Command, path: readonly string[] = []): string[][] =>
  command.commands.flatMap((sub) => [[...path, sub.name()], ...commandPaths(sub, [...path, sub.name()])]);

describe('every --help wraps its paragraphs as its description, at 80 columns off a terminal', () => {
  it.each([[[] as string[]], ...commandPaths(createProgram()).map((path) => [path])])(
    'evals %s --help',
    async (path) => {
      const help = await helpOf(path);
      // A line at the margin (a paragraph: Exit codes, Credentials, Case checks…) fits; an
      // indented one (an example command to paste) is left whole.
      const long = help.split('\n').filter((line) => !/^\s/.test(line) && line.length > 80);
      expect(long).toEqual([]);
    },
  );

  it('the paragraph after the Options list is wrapped, not cut: its words all there, in order', async () => {
    const help = await helpOf(['ingest']);
    expect(help).toMatch(/^Exit codes: 0 only inserted or duplicate attempts/m);
    expect(help.replace(/\s+/g, ' ')).toContain('(postgres://user:***@host/db).');
  });
});

describe('evals --help', () => {
  it('lists every exit code of the table, each with its meaning', async () => {
    const line = /\nExit codes: ([\s\S]*?)\n\n/.exec(await rootHelp())?.[1]?.replaceAll('\n', ' ') ?? ''; // the paragraph, unwrapped
    const codes = new Set([...Object.values(EXIT), POLICY_REPLAY_EXIT.jobFailed]);
    const listed = line.split(' · ').map((segment) => segment.split(' ')[0]);
    for (const code of codes) expect(listed.join(' ').split(/[ /]/), line).toContain(String(code));
  });

  it('shows where to start: examples of real commands, the reading ones among them', async () => {
    const help = await rootHelp();
    const names = new Set(createProgram().commands.map((command) => command.name()));
    const examples = [...help.matchAll(/^ {2}\$ evals ([a-z-]+)/gm)].map((match) => match[1] ?? '');
    for (const name of examples) expect(names).toContain(name);
    expect(examples).toEqual(
      expect.arrayContaining(['init', 'ingest', 'grid', 'compare', 'report', 'publish']),
    );
  });

  it('says where the reading commands find the Evalbook, with the store they open by default', async () => {
    expect((await rootHelp()).replace(/\s+/g, ' ')).toContain(
      `find it in --store, else the --env file's store, else ${DEFAULT_STORE_URL}.`,
    );
  });
});
