// Test support: `evals engine --stdio` without a process — the command's own serveEngine (the code
// runEngine runs on the process's stdin/stdout) over in-memory streams, with the environment given
// as the spawned engine would see it (only PATH and `env`). Protocol and assertion rows run here;
// what only a process shows (its exit, stdout holding nothing else, the bins' command lines) stays
// spawned in engine.conformance.test.ts.
import { PassThrough } from 'node:stream';

import { serveEngine } from '../../src/commands/engine.ts';
import { exitCodeFor, exitCodeForOutcome } from '../../src/exit-codes.ts';
import { EngineConnection } from '@paperclip-evals/test-kit/engine-process';

export function startEngineInProcess(env: Record<string, string> = {}, logLevel = 'warn'): EngineConnection {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const exited = serveEngine(
    { logLevel },
    {
      input: stdin,
      output: stdout,
      env: { PATH: process.env.PATH ?? '', ...env },
      logLine: (line) => stderr.write(line),
    },
  )
    // As the process would end: 0 once served, the exit code of a failure before serving.
    .then(
      () => exitCodeForOutcome('ok'),
      (error: unknown) => exitCodeFor(error),
    )
    .finally(() => {
      stdout.end();
      stderr.end();
    });
  return new EngineConnection({
    stdin,
    stdout,
    stderr,
    exited,
    // Ending its input ends a session: the server answers what it has read, then returns.
    kill: () => {
      stdin.end();
    },
  });
}
