// paperclip-runnerd's command line. Commands:
//   --build-metadata                               print this build's metadata (one JSON object,
//                                                  upstream's eight fields and nothing more)
//   eval-session --request <file> --output <file>  run one attempt with the deterministic driver;
//        write the native-execution/v1 bundle to <file> and its transcript and artifacts to
//        <dir of file>/<attemptId>/
//   --version | --help
// Exit codes: 0 done (the attempt itself may have failed: the bundle says so); 2 the attempt hit an
// infrastructure failure (the bundle is still written, with failure.classification
// "infrastructure"); 1 anything else (bad arguments, bad request, I/O). Results go to stdout,
// diagnostics to stderr.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';

import { packageVersion, runnerdBuildMetadata } from '../build-info.js';
import { parseEvalSessionRequest } from '../session/eval-session-request.js';
import { runEvalSession } from '../session/eval-session.js';

export const RUNNERD_EXIT = Object.freeze({ ok: 0, error: 1, infrastructureFailure: 2 } as const);

export interface RunnerdIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The executable whose digest goes into each bundle's runner.binary.sha256. */
  readonly executablePath: string;
}

const USAGE = `usage: paperclip-runnerd --build-metadata
       paperclip-runnerd eval-session --request <request.json> --output <bundle.json>
       paperclip-runnerd --version | --help
`;

export async function runRunnerd(argv: readonly string[], io: RunnerdIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--build-metadata' && rest.length === 0) {
    io.stdout(`${JSON.stringify(runnerdBuildMetadata())}\n`);
    return RUNNERD_EXIT.ok;
  }
  if (command === '--version' && rest.length === 0) {
    io.stdout(`${packageVersion()}\n`);
    return RUNNERD_EXIT.ok;
  }
  if ((command === '--help' || command === '-h') && rest.length === 0) {
    io.stdout(USAGE);
    return RUNNERD_EXIT.ok;
  }
  if (command !== 'eval-session') {
    io.stderr(`paperclip-runnerd: unknown command ${JSON.stringify(command ?? '')}\n${USAGE}`);
    return RUNNERD_EXIT.error;
  }
  const flags = parseFlags(rest);
  if (typeof flags === 'string') {
    io.stderr(`paperclip-runnerd eval-session: ${flags}\n${USAGE}`);
    return RUNNERD_EXIT.error;
  }
  try {
    const requestText = await readFile(flags.request, 'utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(requestText);
    } catch (cause) {
      throw new Error(`${flags.request} is not JSON: ${String(cause)}`, { cause });
    }
    const request = parseEvalSessionRequest(raw);
    const binarySha256 = await fileSha256(io.executablePath);
    const outcome = await runEvalSession(request, { binarySha256 });
    const baseDir = dirname(flags.output);
    // The output's folder must exist: runnerd never creates directories above the one it owns.
    const baseInfo = await stat(baseDir).catch(() => null);
    if (baseInfo?.isDirectory() !== true) throw new Error(`the output's directory ${baseDir} does not exist`);
    await mkdir(join(baseDir, request.attemptId), { recursive: true });
    for (const file of outcome.files) await writeFile(join(baseDir, file.relativePath), file.bytes);
    await writeFile(flags.output, outcome.bundleText);
    const { terminal, failure } = outcome.bundle;
    io.stdout(
      `${JSON.stringify({ bundle: flags.output, attemptId: request.attemptId, runTerminalState: terminal.runTerminalState, failure })}\n`,
    );
    if (outcome.infrastructureFailure) {
      io.stderr(`paperclip-runnerd eval-session: infrastructure failure: ${failure?.message ?? ''}\n`);
      return RUNNERD_EXIT.infrastructureFailure;
    }
    return RUNNERD_EXIT.ok;
  } catch (error) {
    io.stderr(`paperclip-runnerd eval-session: ${error instanceof Error ? error.message : String(error)}\n`);
    return RUNNERD_EXIT.error;
  }
}

function parseFlags(args: readonly string[]): { request: string; output: string } | string {
  const values = new Map<string, string>();
  for (let index = 0; index < args.length; index += 2) {
    const flag = args[index] ?? '';
    const value = args[index + 1];
    if (flag !== '--request' && flag !== '--output') return `unknown argument ${JSON.stringify(flag)}`;
    if (value === undefined || value === '') return `${flag} needs a file`;
    if (values.has(flag)) return `${flag} given twice`;
    values.set(flag, resolve(value));
  }
  const request = values.get('--request');
  const output = values.get('--output');
  if (request === undefined || output === undefined) return '--request and --output are required';
  return { request, output };
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return `sha256:${hash.digest('hex')}`;
}
