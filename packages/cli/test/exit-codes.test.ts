// The exit-code table, tested directly: every kind of failure a command can end with maps to its
// documented code, and the README's exit-code paragraph names exactly the codes the table has.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';

// The CLI's own import of the contract package (its built output), so `instanceof` is the CLI's.
import { ContractError } from '@paperclip-evals/contract';
import { EvalbookError, storeError } from '../../evalbook/src/errors.ts';
import {
  EXIT,
  POLICY_EVALUATE_EXIT,
  POLICY_REPLAY_EXIT,
  UsageError,
  exitCodeFor,
  exitCodeForPolicyError,
} from '../src/exit-codes.ts';

import type { ContractErrorCode } from '@paperclip-evals/contract';
import type { EvalbookErrorCode } from '../../evalbook/src/errors.ts';
import type { PolicyErrorCode } from '../../policy/src/errors.ts';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

const fileSystemError = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: failed, open 'x'`), { code, errno: -2, syscall: 'open', path: 'x' });

describe('exitCodeFor', () => {
  const rows: [string, unknown, number][] = [
    ['--help / --version (commander exit 0)', new CommanderError(0, 'commander.helpDisplayed', ''), EXIT.ok],
    ['an unknown option', new CommanderError(1, 'commander.unknownOption', 'x'), EXIT.usage],
    ['a usage error', new UsageError('bad flag'), EXIT.usage],
    ['a file that cannot be read', fileSystemError('ENOENT'), EXIT.usage],
    ['a folder that cannot be written', fileSystemError('EACCES'), EXIT.usage],
    ['a store that cannot be used', storeError('corrupt', { issues: [] }), EXIT.usage],
    ['a bug', new TypeError('undefined is not a function'), EXIT.internal],
    [
      'a coded error of no package Evals knows',
      Object.assign(new Error('x'), { code: 'other', issues: [] }),
      EXIT.internal,
    ],
    ['something thrown that is not an Error', 'a string', EXIT.internal],
    ['nothing at all', undefined, EXIT.internal],
  ];
  it.each(rows)('%s', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  const contract: Record<ContractErrorCode, number> = {
    paperclip_native_execution_invalid: 1,
    paperclip_runner_eval_incompatible: 3,
    paperclip_runnerd_artifact_invalid: 4,
    paperclip_contract_document_invalid: 2,
    paperclip_canonical_json_invalid: 2,
    paperclip_output_unwritable: 2,
  };
  it.each(Object.entries(contract))('the contract error %s exits %i', (code, exit) => {
    expect(exitCodeFor(new ContractError(code as ContractErrorCode, 'x'))).toBe(exit);
  });

  // Every code of the evalbook's one error, by the documented meaning: a store that cannot be used
  // and a usage mistake are 2; a cost or statistics failure that escaped its caller is a bug.
  const evalbook: Record<EvalbookErrorCode, number> = {
    paperclip_evalbook_store_unusable: 2,
    paperclip_evalbook_ingest_usage_invalid: 2,
    paperclip_evalbook_scope_unknown: 2,
    paperclip_evalbook_retraction_refused: 2,
    paperclip_evalbook_cost_inconsistent: 70,
    paperclip_evalbook_cost_out_of_range: 70,
    paperclip_evalbook_statistics_out_of_range: 70,
  };
  it.each(Object.entries(evalbook))('the evalbook error %s exits %i', (code, exit) => {
    expect(exitCodeFor(new EvalbookError(code as EvalbookErrorCode, 'x'))).toBe(exit);
  });
  it('reads an evalbook code only as an own key of its table (not "toString")', () => {
    expect(exitCodeFor(Object.assign(new Error('x'), { code: 'toString', issues: [] }))).toBe(EXIT.internal);
  });

  const policy: Record<PolicyErrorCode, number> = {
    paperclip_policy_bundle_invalid: 2,
    paperclip_policy_binary_invalid: 4,
    paperclip_policy_job_failed: 5,
  };
  it.each(Object.entries(policy))('policy replay: %s exits %i', (code, exit) => {
    expect(exitCodeForPolicyError(code as PolicyErrorCode)).toBe(exit);
  });
});

describe('the documented codes', () => {
  it('are distinct meanings: no two names of the main table share a code', () => {
    const values = Object.values(EXIT);
    expect(new Set(values).size).toBe(values.length);
  });

  it('are exactly the codes the README lists, and the signal codes are 128 + the signal', () => {
    const text = readFileSync(README, 'utf8');
    const paragraph = /^Exit codes: [\s\S]*?\n\n/m.exec(text)?.[0];
    if (paragraph === undefined) throw new Error('README has no "Exit codes:" paragraph');
    const listed = new Set([...paragraph.matchAll(/`(\d+)`/g)].map((match) => Number(match[1])));
    const table = new Set([
      ...Object.values(EXIT),
      ...Object.values(POLICY_REPLAY_EXIT),
      ...Object.values(POLICY_EVALUATE_EXIT),
    ]);
    expect([...listed].sort((a, b) => a - b)).toEqual([...table].sort((a, b) => a - b));
    expect([EXIT.interrupted, EXIT.terminated]).toEqual([128 + 2, 128 + 15]);
  });
});
