// The exit-code table, tested directly: every outcome a command can come to and every kind of failure
// it can end with maps to its documented code (a row each), the README's exit-code paragraph names
// exactly the codes the table has, and no command decides an exit code itself: each action goes
// through act() (run.ts), and no source sets process.exitCode but the two entry points.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The CLI's own imports of the packages (their built output), so `instanceof` is the CLI's.
import { AppError } from '@paperclip-evals/app';
import { ChecksError } from '@paperclip-evals/checks';
import { ContractError } from '@paperclip-evals/contract';
import { PolicyError } from '@paperclip-evals/policy';
import { EvalbookError, storeError } from '../../evalbook/src/errors.ts';
import {
  EXIT,
  EXIT_FOR_OUTCOME,
  POLICY_EVALUATE_EXIT,
  POLICY_REPLAY_EXIT,
  UsageError,
  contractFailureJson,
  exitCodeFor,
  exitCodeForOutcome,
  exitCodeForPolicyReplay,
  issueLine,
} from '../src/exit-codes.ts';

import { CampaignError } from '@paperclip-evals/campaign';
import type { AppErrorCode } from '@paperclip-evals/app';
import type { CampaignErrorCode } from '@paperclip-evals/campaign';
import type { ChecksErrorCode } from '@paperclip-evals/checks';
import type { ContractErrorCode } from '@paperclip-evals/contract';
import type { EvalbookErrorCode } from '../../evalbook/src/errors.ts';
import type { PolicyErrorCode } from '@paperclip-evals/policy';
import type { Outcome } from '../src/exit-codes.ts';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

const fileSystemError = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: failed, open 'x'`), { code, errno: -2, syscall: 'open', path: 'x' });

describe('exitCodeForOutcome: a row per outcome', () => {
  const rows: Record<Outcome, number> = {
    ok: 0,
    invalid: 1,
    unreadable: 2,
    rejected: 1,
    not_stored: 2,
    refused: 1,
    gate_failed: 1,
    incompatible: 3,
    row_errors: 1,
    unfamiliar_verdicts: 1,
    evaluate_row_errors: 1,
    could_not_start: 2,
    campaign_incomplete: 1,
    campaign_interrupted: 130,
    campaign_terminated: 143,
    site_refused: 1,
    engine_stopped: 1,
  };
  it.each(Object.entries(rows))('%s exits %i', (outcome, code) => {
    expect(exitCodeForOutcome(outcome as Outcome)).toBe(code);
  });

  it('has a row here for every outcome of the table, and no other', () => {
    expect(Object.keys(EXIT_FOR_OUTCOME).sort()).toEqual(Object.keys(rows).sort());
  });
});

describe('exitCodeFor: a row per failure', () => {
  const rows: [string, unknown, number][] = [
    ['--help / --version (commander exit 0)', new CommanderError(0, 'commander.helpDisplayed', ''), EXIT.ok],
    ['an unknown option', new CommanderError(1, 'commander.unknownOption', 'x'), EXIT.usage],
    [
      'a usage error',
      new UsageError('bad flag', { issues: [{ code: 'option_value_invalid', message: 'bad flag' }] }),
      EXIT.usage,
    ],
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
    paperclip_eval_session_artifact_invalid: 1,
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
    paperclip_evalbook_campaign_conflict: 1,
    paperclip_evalbook_merge_conflict: 1,
    paperclip_evalbook_report_option_invalid: 2,
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

  const app: Record<AppErrorCode, number> = {
    paperclip_app_request_invalid: 2,
    paperclip_app_input_invalid: 2,
    paperclip_app_site_conflict: 1,
    paperclip_app_site_invalid: 1,
  };
  it.each(Object.entries(app))('the app error %s exits %i', (code, exit) => {
    expect(exitCodeFor(new AppError(code as AppErrorCode, 'x'))).toBe(exit);
  });
  const campaign: Record<CampaignErrorCode, number> = {
    paperclip_campaign_suite_invalid: 2,
    paperclip_campaign_release_incompatible: 3,
    paperclip_campaign_record_conflict: 1,
    paperclip_campaign_record_invalid: 2,
  };
  it.each(Object.entries(campaign))('campaign %s exits %i', (code, exit) => {
    expect(exitCodeFor(new CampaignError(code as CampaignErrorCode, 'x'))).toBe(exit);
  });

  // Every code of the checks engine's one error: engine settings it cannot use refuse a command's
  // start (2); a wire code is answered over JSON-RPC and every other one is handled in the package,
  // so one that reaches a command is a bug.
  const checks: Record<ChecksErrorCode, number> = {
    engine_config_invalid: 2,
    parse_error: 70,
    invalid_request: 70,
    method_not_found: 70,
    invalid_params: 70,
    internal_error: 70,
    invalid_trace: 70,
    assertion_error: 70,
    provider_error: 70,
    engine_error: 70,
    timeout: 70,
    session_error: 70,
    spec_invalid: 70,
    trace_path_invalid: 70,
    provider_call_auth: 70,
    provider_call_unavailable: 70,
    provider_call_rejected: 70,
    drift_history_unavailable: 70,
    request_timeout: 70,
    engine_restarted: 70,
    connection_closed: 70,
    spawn_failed: 70,
    protocol_violation: 70,
    reply_mismatch: 70,
  };
  it.each(Object.entries(checks))('the checks error %s exits %i', (code, exit) => {
    expect(exitCodeFor(new ChecksError(code as ChecksErrorCode, 'x'))).toBe(exit);
  });
  it('reads a checks code only on a ChecksError (another coded error with the same code is not one)', () => {
    const lookalike = Object.assign(new Error('x'), { code: 'engine_config_invalid', issues: [] });
    expect(exitCodeFor(lookalike)).toBe(EXIT.internal);
  });

  // One rule for every conflict with what is recorded (an attempt, a campaign id, a published
  // campaign, a shard's copy): exit 1, as every command's help says, never infrastructure or usage.
  it('exits 1 for every *_conflict code of every package (one rule for all conflicts)', () => {
    const tables: Record<string, Record<string, number>> = { contract, evalbook, app, campaign, checks };
    const conflicts = Object.values(tables)
      .flatMap((table) => Object.entries(table))
      .filter(([code]) => code.endsWith('_conflict'));
    expect(conflicts.map(([code]) => code).sort()).toEqual([
      'paperclip_app_site_conflict',
      'paperclip_campaign_record_conflict',
      'paperclip_evalbook_campaign_conflict',
      'paperclip_evalbook_merge_conflict',
    ]);
    for (const [code, exit] of conflicts) expect(exit, code).toBe(EXIT.invalid);
    expect(exitCodeForOutcome('rejected')).toBe(EXIT.invalid); // ingest: a conflicting digest
  });

  it('maps every code of every package to exactly one exit code: no code is in two packages', () => {
    const tables: Record<string, Record<string, number>> = { contract, evalbook, app, campaign, checks };
    const owners = new Map<string, string[]>();
    for (const [pkg, table] of Object.entries(tables))
      for (const code of Object.keys(table)) owners.set(code, [...(owners.get(code) ?? []), pkg]);
    expect([...owners].filter(([, pkgs]) => pkgs.length > 1)).toEqual([]);
  });

  it("names every package's code paperclip_<package>_… (checks' are the JSON-RPC error names its protocol defines)", () => {
    const tables: Record<string, Record<string, number>> = { contract, evalbook, app, campaign };
    const unprefixed = Object.entries(tables).flatMap(([pkg, table]) =>
      Object.keys(table)
        .filter((code) => !code.startsWith('paperclip_'))
        .map((code) => `${pkg}: ${code}`),
    );
    expect(unprefixed).toEqual([]);
    for (const code of Object.keys(campaign)) expect(code).toMatch(/^paperclip_campaign_[a-z_]+$/);
    for (const code of Object.keys(app)) expect(code).toMatch(/^paperclip_app_[a-z_]+$/);
    for (const code of Object.keys(evalbook)) expect(code).toMatch(/^paperclip_evalbook_[a-z_]+$/);
  });
});

describe('exitCodeForPolicyReplay: its own codes for the same failures', () => {
  const policy: Record<PolicyErrorCode, number> = {
    paperclip_policy_bundle_invalid: 2,
    paperclip_policy_binary_invalid: 4,
    paperclip_policy_job_failed: 5,
  };
  it.each(Object.entries(policy))('%s exits %i', (code, exit) => {
    expect(exitCodeForPolicyReplay(new PolicyError(code as PolicyErrorCode, 'x'))).toBe(exit);
  });

  it.each(Object.keys(policy))('%s is internal (70) for any other command', (code) => {
    expect(exitCodeFor(new PolicyError(code as PolicyErrorCode, 'x'))).toBe(EXIT.internal);
  });

  const rows: [string, unknown, number][] = [
    // An attempt that is not valid cannot be replayed: an input error, not validate's "invalid" (1).
    [
      'an invalid attempt bundle',
      new ContractError('paperclip_native_execution_invalid', 'x'),
      POLICY_REPLAY_EXIT.usage,
    ],
    ['a runnerd artifact error', new ContractError('paperclip_runnerd_artifact_invalid', 'x'), 2],
    ['an app refusal', new AppError('paperclip_app_input_invalid', 'x'), 2],
    ['a usage error', new UsageError('x', { issues: [{ code: 'option_value_invalid', message: 'x' }] }), 2],
    ['a store that cannot be used', storeError('corrupt'), 2],
    ['a file that cannot be read', fileSystemError('ENOENT'), 2],
    ['a bug', new TypeError('x'), EXIT.internal],
  ];
  it.each(rows)('%s', (_name, error, code) => {
    expect(exitCodeForPolicyReplay(error)).toBe(code);
  });
});

describe('contractFailureJson', () => {
  it('is {ok: false, code, message, issues} for a contract error', () => {
    const issue = { code: 'digest_mismatch', message: 'm', component: 'runnerd' };
    const error = new ContractError('paperclip_runnerd_artifact_invalid', 'not verified', [issue]);
    expect(JSON.parse(contractFailureJson(error) ?? 'null')).toEqual({
      ok: false,
      code: 'paperclip_runnerd_artifact_invalid',
      message: 'not verified',
      issues: [issue],
    });
  });

  it.each([
    new UsageError('x', { issues: [{ code: 'option_value_invalid', message: 'x' }] }),
    new TypeError('x'),
    fileSystemError('ENOENT'),
  ])('is nothing for any other failure (%s)', (error) => {
    expect(contractFailureJson(error)).toBeUndefined();
  });
});

describe('the documented codes', () => {
  it('are distinct meanings: no two names of the main table share a code', () => {
    const values = Object.values(EXIT);
    expect(new Set(values).size).toBe(values.length);
  });

  it('hold every outcome: each maps to a code of the main, replay or evaluate table', () => {
    const documented = new Set<number>([
      ...Object.values(EXIT),
      ...Object.values(POLICY_REPLAY_EXIT),
      ...Object.values(POLICY_EVALUATE_EXIT),
    ]);
    for (const [outcome, code] of Object.entries(EXIT_FOR_OUTCOME))
      expect(documented.has(code), outcome).toBe(true);
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

describe('no command decides its own exit code', () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );
  const source = (file: string): string => readFileSync(join(SRC, file), 'utf8');
  /** The entry points set process.exitCode, each from its one runner's result. */
  const ENTRY_POINTS: Readonly<Record<string, RegExp>> = {
    'main.ts': /process\.exitCode = await runProgram\(/g,
    'engine-main.ts': /process\.exitCode = await runEngineBin\(/g,
  };

  it.each(files)('%s sets no process.exitCode of its own and exits with no number of its own', (file) => {
    const text = source(file).replace(ENTRY_POINTS[file] ?? /$^/g, '');
    expect(text).not.toMatch(/process\.exitCode\s*=/);
    // process.exit(N) and process.exit(EXIT.x): only a code from the table (exitCodeForOutcome, or
    // exitCodeFor of the output failure a broken stdout is, in main.ts).
    const exits = [...text.matchAll(/process\.exit\((.*)\);/g)].map((match) => match[1]);
    for (const argument of exits)
      expect(
        argument === "exitCodeForOutcome('ok')" ||
          // evals-engine stopped by a signal (the Attest engine's exit 1): a row of the table too.
          (file === 'engine-main.ts' && argument === "exitCodeForOutcome('engine_stopped')") ||
          (file === 'main.ts' && argument === 'exitCodeFor(failure)'),
        `${file}: process.exit(${argument})`,
      ).toBe(true);
  });

  it.each(files.filter((file) => /(?:^|\/)(?:program|[a-z-]+-program)\.ts$/.test(file)))(
    '%s: every action is act(…), so its outcome and failures go through the table',
    (file) => {
      const text = source(file);
      const actions = [...text.matchAll(/\.action\(\s*([a-z]+)/g)].map((match) => match[1]);
      expect(actions.length).toBeGreaterThan(0);
      expect(actions).toEqual(actions.map(() => 'act'));
    },
  );

  it('catches what it is meant to: a command with its own exit code fails the scan', () => {
    expect('    process.exitCode = 2;').toMatch(/process\.exitCode\s*=/);
    expect([...'.action(async () => {'.matchAll(/\.action\(\s*([a-z]+)/g)].map((m) => m[1])).toEqual([
      'async',
    ]);
  });
});

describe('issueLine: an issue says only what it has', () => {
  const text = fc.stringMatching(/^[a-z0-9]{1,12}$/).filter((t) => t !== 'undefined');
  const issue = fc.record(
    {
      code: fc.constantFrom('frame_invalid', 'digest_mismatch'),
      message: text,
      path: fc.constantFrom('/a', '/events/0'),
      component: fc.constantFrom('runnerd', 'package'),
      expected: fc.oneof(text, fc.integer(), fc.constant(null)),
      received: fc.oneof(text, fc.integer(), fc.constant(null)),
    },
    { requiredKeys: ['code', 'message'] },
  );

  it('prints expected, received and where exactly when each is set, and never "undefined"', () => {
    fc.assert(
      fc.property(issue, (shown) => {
        const line = issueLine(shown);
        expect(line).not.toContain('undefined');
        expect(line.includes('expected ')).toBe(shown.expected !== undefined);
        expect(line.includes('received ')).toBe(shown.received !== undefined);
        expect(line.includes(' at ')).toBe(shown.path !== undefined || shown.component !== undefined);
        if (shown.path !== undefined) expect(line).toContain(` at ${shown.path}:`);
      }),
    );
  });

  it('names the one it has: frame_invalid with a received value only', () => {
    expect(issueLine({ code: 'frame_invalid', message: 'not a JSON line', received: 'hello' })).toBe(
      '  frame_invalid: not a JSON line (received hello)',
    );
  });
});
