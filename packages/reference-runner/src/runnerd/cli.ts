// paperclip-runnerd's command line. Commands:
//   --build-metadata   print this build's metadata (one JSON object: upstream's eight fields
//                      and nothing more)
//   --version | --help
// Eval sessions are the package's paperclip-runner-eval-session bin (src/cli/eval-session.ts), as
// upstream ships them: it re-hashes this binary and asks it for its build metadata first.
// Exit codes: 0 done; 1 anything else (an unknown command). Results go to stdout, diagnostics to
// stderr.
import { packageVersion, runnerdBuildMetadata } from '../build-info.js';

export const RUNNERD_EXIT = Object.freeze({ ok: 0, error: 1 } as const);

export interface RunnerdIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const USAGE = `usage: paperclip-runnerd --build-metadata
       paperclip-runnerd --version | --help
`;

export function runRunnerd(argv: readonly string[], io: RunnerdIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--build-metadata' && rest.length === 0) {
    io.stdout(`${JSON.stringify(runnerdBuildMetadata())}\n`);
    return Promise.resolve(RUNNERD_EXIT.ok);
  }
  if (command === '--version' && rest.length === 0) {
    io.stdout(`${packageVersion()}\n`);
    return Promise.resolve(RUNNERD_EXIT.ok);
  }
  if ((command === '--help' || command === '-h') && rest.length === 0) {
    io.stdout(USAGE);
    return Promise.resolve(RUNNERD_EXIT.ok);
  }
  io.stderr(`paperclip-runnerd: unknown command ${JSON.stringify(command ?? '')}\n${USAGE}`);
  return Promise.resolve(RUNNERD_EXIT.error);
}
