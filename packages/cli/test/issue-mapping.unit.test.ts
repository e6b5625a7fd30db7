// Every package's issue reaches a CLI JSON output through one mapping (cliIssue in exit-codes.ts),
// so whatever member a package's issue carries — qualification's `file` and `entry`, or any other —
// the output holds to its schema: cli-failure/v1 for every --json failure, runnerd-inspect/v1 and
// negotiate/v1 for a contract failure. Property rows over each package's coded error with issues of
// arbitrary extra members; `file` and `entry` are kept (where a release's issue is), nothing else added.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { AppError } from '@paperclip-evals/app';
import { CampaignError } from '@paperclip-evals/campaign';
import { ChecksError } from '@paperclip-evals/checks';
import { ContractError, schemaErrors } from '@paperclip-evals/contract';
import { PolicyError } from '@paperclip-evals/policy';
import { EvalbookError } from '../../evalbook/src/errors.ts';
import { cliIssue, contractFailureJson, failureJson } from '../src/exit-codes.ts';

import type { Issue } from '@paperclip-evals/contract';

const SCHEMA = (name: string): string => `https://paperclip-evals.dev/schemas/${name}/v1.json`;
const MEMBERS = ['code', 'message', 'path', 'component', 'file', 'entry', 'expected', 'received'];

/** Each package's coded error, made with these issues. */
const ERRORS: readonly (readonly [string, (issues: Issue[]) => Error])[] = [
  ['contract', (issues) => new ContractError('paperclip_runnerd_artifact_invalid', 'bad runnerd', issues)],
  [
    'campaign',
    (issues) => new CampaignError('paperclip_campaign_release_incompatible', 'does not join', issues),
  ],
  ['app', (issues) => new AppError('paperclip_app_input_invalid', 'bad input', issues)],
  ['evalbook', (issues) => new EvalbookError('paperclip_evalbook_store_unusable', 'no store', issues)],
  ['policy', (issues) => new PolicyError('paperclip_policy_bundle_invalid', 'bad bundle', issues)],
  ['checks', (issues) => new ChecksError('invalid_params', 'bad request', issues)],
];

const json = fc.jsonValue();
/** An issue as a package may make one: the contract's members, `file`/`entry`, and members of its own. */
const packageIssue = fc
  .record(
    {
      code: fc.string({ minLength: 1 }),
      message: fc.string(),
      path: fc.string(),
      component: fc.string(),
      file: fc.oneof(fc.string(), json),
      entry: fc.string(),
      expected: json,
      received: json,
    },
    { requiredKeys: ['code', 'message'] },
  )
  .chain((issue) =>
    fc
      .dictionary(
        fc.string({ minLength: 1 }).filter((key) => !MEMBERS.includes(key) && key !== '__proto__'),
        json,
        { maxKeys: 3 },
      )
      .map((extra): Issue => ({ ...extra, ...issue })),
  );

describe('a --json failure holds to cli-failure/v1 whatever members a package put on its issues', () => {
  it.each(ERRORS)('%s error', (_name, make) => {
    fc.assert(
      fc.property(fc.array(packageIssue, { maxLength: 4 }), (issues) => {
        const printed = JSON.parse(failureJson('paperclip-evals/run/v1', 3, make(issues))) as {
          error: { issues: Record<string, unknown>[] };
        };
        expect(schemaErrors(SCHEMA('cli-failure'), printed)).toEqual([]);
        expect(printed.error.issues.map((issue) => issue.code)).toEqual(issues.map((issue) => issue.code));
      }),
      { numRuns: 60 },
    );
  });

  it('a contract failure of runnerd inspect and negotiate holds to their schemas too', () => {
    fc.assert(
      fc.property(fc.array(packageIssue, { maxLength: 4 }), (issues) => {
        const printed = JSON.parse(
          contractFailureJson(new ContractError('paperclip_runnerd_artifact_invalid', 'bad', issues)) ?? '',
        ) as unknown;
        expect(schemaErrors(SCHEMA('runnerd-inspect'), printed)).toEqual([]);
        expect(schemaErrors(SCHEMA('negotiate'), printed)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('cliIssue keeps what says where and what, and nothing else', () => {
  it('a qualification issue keeps its file and entry; a member of its own is not printed', () => {
    const issue = {
      code: 'runnerd_prp_range_mismatch',
      message: 'runnerd speaks 99..99',
      component: 'prp',
      file: 'bin/paperclip-runnerd',
      entry: 'package/package.json',
      path: '/prp',
      expected: { minimumVersion: 1 },
      received: { minimumVersion: 99 },
      check: 'runnerd-resolve',
    } as Issue;
    expect(cliIssue(issue)).toEqual({
      code: 'runnerd_prp_range_mismatch',
      message: 'runnerd speaks 99..99',
      path: '/prp',
      component: 'prp',
      file: 'bin/paperclip-runnerd',
      entry: 'package/package.json',
      expected: { minimumVersion: 1 },
      received: { minimumVersion: 99 },
    });
  });

  it('an issue with only a code and a message gains no member', () => {
    expect(cliIssue({ code: 'x', message: 'y' })).toEqual({ code: 'x', message: 'y' });
  });

  it('what was expected or received stays as it was, a null or a false included', () => {
    expect(cliIssue({ code: 'x', message: 'y', expected: null, received: false })).toEqual({
      code: 'x',
      message: 'y',
      expected: null,
      received: false,
    });
  });
});

describe('a --json failure masks what an issue received under a secret name', () => {
  const received = {
    user: 'evals',
    password: 'hunter2-x',
    apiKey: 'sk-live-1',
    attemptKey: 'run/c/1',
    inputTokens: 12,
  };
  const shown = { user: 'evals', password: '***', apiKey: '***', attemptKey: 'run/c/1', inputTokens: 12 };
  const issues: Issue[] = [{ code: 'store_unusable', message: 'cannot open', path: '/store', received }];

  it.each(ERRORS)('%s error, as cli-failure/v1', (_name, make) => {
    const text = failureJson('paperclip-evals/run/v1', 2, make(issues));
    expect(text).not.toContain('hunter2-x');
    expect(text).not.toContain('sk-live-1');
    const printed = JSON.parse(text) as { error: { issues: { received: unknown }[] } };
    expect(printed.error.issues[0]?.received).toEqual(shown);
    expect(schemaErrors(SCHEMA('cli-failure'), printed)).toEqual([]);
  });

  it('a contract failure of runnerd inspect and negotiate', () => {
    const text =
      contractFailureJson(new ContractError('paperclip_runnerd_artifact_invalid', 'bad', issues)) ?? '';
    expect(text).not.toContain('hunter2-x');
    expect((JSON.parse(text) as { issues: { received: unknown }[] }).issues[0]?.received).toEqual(shown);
  });
});
