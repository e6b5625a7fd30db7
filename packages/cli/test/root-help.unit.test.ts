// `evals --help` teaches a new user: where to start (examples of real commands, where the reading
// commands find the Evalbook) and every exit code any command gives, from the one table.
import { describe, expect, it } from 'vitest';
import { DEFAULT_STORE_URL } from '@paperclip-evals/evalbook';

import { EXIT, POLICY_REPLAY_EXIT } from '../src/exit-codes.ts';
import { createProgram, runProgram } from '../src/program.ts';
import { setOutputSink } from '../src/print.ts';

async function rootHelp(): Promise<string> {
  let stdout = '';
  const previous = setOutputSink({
    write: (stream, text, done) => {
      if (stream === 'stdout') stdout += text;
      done?.();
    },
    isTerminal: () => false,
  });
  try {
    expect(await runProgram(['node', 'evals', '--help'], createProgram())).toBe(0);
    return stdout;
  } finally {
    setOutputSink(previous);
  }
}

describe('evals --help', () => {
  it('lists every exit code of the table, each with its meaning', async () => {
    const line = /\nExit codes: (.*)\n/.exec(await rootHelp())?.[1] ?? '';
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
