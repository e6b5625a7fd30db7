// The one read-and-classify loop over bundle inputs (validate, ingest): each input from
// expandBundleInputs is read, hashed and parsed by the schema it declares (readAttemptFile: a
// native-execution bundle, an eval-session artifact and the bundle beside it, or an artifact alone
// when it references none; the stream for `-`)
// and classified — valid; invalid (a ContractError: every issue); unreadable (refused by the
// expander, or an fs error, with its message). Anything else is not about the input and is thrown
// (an internal failure). With `readAhead`, the next files are opened and read while the caller
// works on the current one (their failures wait for their turn); stdin is read only at its turn.
import { isContractError } from '@paperclip-evals/contract';

import { fileSystemWhat, isFileSystemError } from './bundle-inputs.js';
import { readAttemptReadFile, readAttemptReadStream } from './attempt-input.js';
import { turnIfDue } from './event-loop-turn.js';

import type { ContractError } from '@paperclip-evals/contract';

import type { BundleInput, InputRefusalCode } from './bundle-inputs.js';
import type { AttemptRead, ReadAttemptOptions } from './attempt-input.js';

export type BundleRead =
  | { readonly status: 'valid'; readonly input: BundleInput; readonly parsed: AttemptRead }
  | { readonly status: 'invalid'; readonly input: BundleInput; readonly error: ContractError }
  | {
      readonly status: 'unreadable';
      readonly input: BundleInput;
      readonly error: string;
      /** The rule: the expander's refusal code, input_missing (nothing there) or input_unreadable. */
      readonly code: UnreadableInputCode;
    };

/** Why an input could not be read: the expander's refusal, nothing at the path, or a read that failed. */
export type UnreadableInputCode = InputRefusalCode | 'input_missing' | 'input_unreadable';

export interface ReadBundlesOptions extends ReadAttemptOptions {
  /** What `-` reads, asked at its turn (default: process.stdin). */
  readonly stdin?: () => AsyncIterable<Uint8Array>;
  /** How many files are read ahead of the one the caller has (default 0: one at a time). */
  readonly readAhead?: number;
}

/** Reads and classifies each input in order; see the head of this file. */
export async function* readBundles(
  inputs: AsyncIterable<BundleInput> | Iterable<BundleInput>,
  options: ReadBundlesOptions = {},
): AsyncGenerator<BundleRead> {
  const { stdin = () => process.stdin, readAhead = 0, ...parseOptions } = options;
  const window: { input: BundleInput; reading: Promise<AttemptRead> | undefined }[] = [];
  const start = (input: BundleInput): void => {
    const reading =
      input.path === null || input.refused !== undefined
        ? undefined
        : readAttemptReadFile(input.path, parseOptions);
    // Its failure is classified when its turn comes; until then it must not count as unhandled.
    reading?.catch(() => undefined);
    window.push({ input, reading });
  };
  for await (const input of inputs) {
    start(input);
    if (window.length <= readAhead) continue;
    const next = window.shift();
    // Reads are synchronous underneath: a turn now and then, so a signal is heard mid-way.
    await turnIfDue();
    if (next !== undefined) yield await classify(next.input, next.reading, stdin, parseOptions);
  }
  for (let next = window.shift(); next !== undefined; next = window.shift()) {
    await turnIfDue();
    yield await classify(next.input, next.reading, stdin, parseOptions);
  }
}

async function classify(
  input: BundleInput,
  reading: Promise<AttemptRead> | undefined,
  stdin: () => AsyncIterable<Uint8Array>,
  parseOptions: ReadAttemptOptions,
): Promise<BundleRead> {
  if (input.refused !== undefined)
    return {
      status: 'unreadable',
      input,
      error: input.refused,
      code: input.refusedCode ?? 'input_unreadable',
    };
  try {
    const parsed = await (reading ?? readAttemptReadStream(stdin(), parseOptions));
    return { status: 'valid', input, parsed };
  } catch (error) {
    if (isContractError(error)) return { status: 'invalid', input, error };
    if (isFileSystemError(error))
      // "no such file or directory (ENOENT)": the input is shown beside it, so no temporary or absolute path.
      return {
        status: 'unreadable',
        input,
        error: `${fileSystemWhat(error)} (${error.code ?? error.syscall})`,
        code: error.code === 'ENOENT' || error.code === 'ENOTDIR' ? 'input_missing' : 'input_unreadable',
      };
    throw error; // not about the input: an internal failure
  }
}
