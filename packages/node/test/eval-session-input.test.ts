// The eval-session-artifact/v1 parser (contract) and node's attempt reader that dispatches on
// `schema`: a mutation
// table (each rule flipped is refused with its code and pointer), the referenced bundle found only
// beside the artifact and verified by digest and size, the artifact and its bundle agreeing on
// attempt, binary, package, cost and outcome, and a qualified runnerd digest enforced when known.
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';

import { evalSessionArtifactIssues, parseEvalSessionArtifact } from '@paperclip-evals/contract';

import {
  parseAttemptRead,
  readAttemptFile,
  readAttemptReadFile,
  readAttemptReadStream,
  readAttemptStream,
} from '../src/attempt-input.ts';

import { BINARY, REPO, directBundle, removeCases, sha256, writeCase } from './support/eval-session-case.ts';

afterAll(() => {
  removeCases();
});

const failureShape = (
  artifact: Record<string, unknown>,
  failure: Record<string, unknown>,
): Record<string, unknown> => {
  const { turn: _turn, ...rest } = artifact;
  return {
    ...rest,
    infrastructureError: 'the provider turn timed out after 200 ms',
    infrastructureFailure: {
      class: 'provider_turn_timeout',
      category: 'provider_lifecycle',
      retryable: true,
      diagnostics: {},
      ...failure,
    },
  };
};

type Edit = (artifact: Record<string, unknown>) => unknown;
const usage =
  (fields: Record<string, unknown>): Edit =>
  (a) => ({ ...a, usage: { ...(a.usage as object), ...fields } });

describe('evalSessionArtifactIssues: each rule flipped is refused with its code', () => {
  const valid = writeCase().artifact;
  const rows: [string, Edit, string, string][] = [
    ['not an object', () => 'artifact', 'json_not_object', ''],
    [
      'another schema',
      (a) => ({ ...a, schema: 'paperclip-runner/eval-session-artifact/v2' }),
      'artifact_schema_unknown',
      '/schema',
    ],
    [
      'the runnerd path written',
      (a) => ({ ...a, runnerd: { path: '/opt/runnerd', sha256: BINARY } }),
      'runnerd_path_not_withheld',
      '/runnerd/path',
    ],
    [
      'a malformed runnerd digest',
      (a) => ({ ...a, runnerd: { path: '[withheld]', sha256: 'sha256:ABC' } }),
      'digest_malformed',
      '/runnerd/sha256',
    ],
    ['an unknown provider', (a) => ({ ...a, provider: 'gpt-shell' }), 'schema_violation', '/provider'],
    ['attemptId missing', ({ attemptId: _a, ...a }) => a, 'schema_violation', '/attemptId'],
    ['timing missing', ({ timing: _t, ...a }) => a, 'schema_violation', '/timing'],
    [
      'a timestamp that is not one',
      (a) => ({ ...a, timing: { ...(a.timing as object), startedAt: 'soon' } }),
      'timestamp_invalid',
      '/timing/startedAt',
    ],
    [
      'a negative cost',
      usage({ estimatedCostNanodollars: -1 }),
      'cost_nanodollars_invalid',
      '/usage/estimatedCostNanodollars',
    ],
    [
      'a fractional cost',
      usage({ legacyLedgerCostNanodollars: 1.5 }),
      'cost_nanodollars_invalid',
      '/usage/legacyLedgerCostNanodollars',
    ],
    [
      'an unknown provenance',
      usage({ providerReportedCostProvenance: 'provider_receipt' }),
      'schema_violation',
      '/usage/providerReportedCostProvenance',
    ],
    [
      'an unknown coverage',
      usage({ costCoverage: 'provider_reported' }),
      'schema_violation',
      '/usage/costCoverage',
    ],
    [
      'the driver of another provider',
      (a) => ({ ...a, driver: 'codex_app_server' }),
      'provider_driver_mismatch',
      '/driver',
    ],
    ['a success without its turn', ({ turn: _t, ...a }) => a, 'artifact_success_incomplete', '/turn'],
    ['a success without usage', ({ usage: _u, ...a }) => a, 'artifact_success_incomplete', '/usage'],
    ['a success without snapshot', ({ snapshot: _s, ...a }) => a, 'artifact_success_incomplete', '/snapshot'],
    [
      'a failure beside a turn',
      (a) => ({ ...failureShape(a, {}), turn: a.turn }),
      'artifact_shape_ambiguous',
      '/turn',
    ],
    [
      'a failure without its message',
      (a) => {
        const { infrastructureError: _e, ...rest } = failureShape(a, {});
        return rest;
      },
      'artifact_failure_incomplete',
      '/infrastructureError',
    ],
    [
      'a class of another category',
      (a) => failureShape(a, { category: 'eval_orchestration' }),
      'failure_class_mismatch',
      '/infrastructureFailure/category',
    ],
    [
      'a retryable budget stop',
      (a) =>
        failureShape(a, { class: 'provider_budget_reached', category: 'provider_budget', retryable: true }),
      'failure_class_mismatch',
      '/infrastructureFailure/retryable',
    ],
    [
      'an unknown class',
      (a) => failureShape(a, { class: 'network_glitch' }),
      'schema_violation',
      '/infrastructureFailure/class',
    ],
    [
      'a free request: provider null but not unavailable',
      usage({ providerReportedCostProvenance: 'legacy_runner_usage_ledger' }),
      'usage_provenance_mismatch',
      '/usage/providerReportedCostProvenance',
    ],
    [
      'a provider figure labelled unavailable',
      usage({ providerReportedCostNanodollars: 0 }),
      'usage_provenance_mismatch',
      '/usage/providerReportedCostProvenance',
    ],
    [
      'an estimate without its price list',
      usage({ pricingVersion: null }),
      'usage_pricing_missing',
      '/usage/pricingVersion',
    ],
    [
      'an estimate without its rates',
      usage({ ratesUsdPerMillionTokens: null }),
      'usage_pricing_missing',
      '/usage/ratesUsdPerMillionTokens',
    ],
    [
      'a price list without an estimate',
      usage({ estimatedCostNanodollars: null, costCoverage: 'unpriced' }),
      'usage_pricing_without_estimate',
      '/usage/pricingVersion',
    ],
    [
      'estimated without an estimate',
      usage({ estimatedCostNanodollars: null, pricingVersion: null, ratesUsdPerMillionTokens: null }),
      'usage_coverage_mismatch',
      '/usage/costCoverage',
    ],
    [
      'unpriced beside an estimate',
      usage({ costCoverage: 'unpriced' }),
      'usage_coverage_mismatch',
      '/usage/costCoverage',
    ],
    [
      'legacy coverage without a legacy amount',
      usage({ costCoverage: 'legacy_ledger_and_estimate', legacyLedgerCostNanodollars: null }),
      'usage_coverage_mismatch',
      '/usage/costCoverage',
    ],
    [
      'finished before it started',
      (a) => ({ ...a, timing: { ...(a.timing as object), finishedAt: '2026-12-01T09:00:00.000Z' } }),
      'timing_out_of_order',
      '/timing/finishedAt',
    ],
  ];

  it('the valid artifact, an additive field kept, has no issue', () => {
    expect(evalSessionArtifactIssues(valid)).toEqual([]);
    expect(parseEvalSessionArtifact(JSON.stringify({ ...valid, upstreamExtra: 1 }))).toMatchObject({
      upstreamExtra: 1,
    });
    expect(evalSessionArtifactIssues(failureShape(valid, {}))).toEqual([]);
    expect(evalSessionArtifactIssues(usage({ costCoverage: 'legacy_ledger_and_estimate' })(valid))).toEqual(
      [],
    );
  });

  it.each(rows)('%s → %s', (_name, edit, code, path) => {
    expect(evalSessionArtifactIssues(edit(structuredClone(valid)))).toContainEqual(
      expect.objectContaining({ code, path }),
    );
  });

  it('refuses strict-JSON faults before anything else (a duplicate key)', () => {
    expect(() => parseEvalSessionArtifact('{"schema":"a","schema":"b"}')).toThrowCode(
      'paperclip_eval_session_artifact_invalid',
    );
  });
});

const refusal = async (
  path: string,
  options = {},
): Promise<{ code: string; issues: { code: string; path?: string }[] }> => {
  try {
    await readAttemptFile(path, options);
  } catch (error) {
    return error as { code: string; issues: { code: string; path?: string }[] };
  }
  throw new Error('accepted');
};

describe('readAttemptFile: an artifact and the bundle beside it', () => {
  it('reads the bundle by digest and returns it with the artifact', async () => {
    const { artifactPath, dir } = writeCase();
    const input = await readAttemptFile(artifactPath);
    const bundleBytes = readFileSync(join(dir, 'attempt', 'native-execution.json'));
    expect(input.fileSha256).toBe(sha256(bundleBytes));
    expect(input.byteSize).toBe(bundleBytes.length);
    expect(input.bundle.identity.attemptId).toBe('attempt_solved_0001');
    expect(input.evalSession?.artifactSha256).toBe(sha256(readFileSync(artifactPath)));
    expect(input.evalSession?.artifact.provider).toBe('paperclip_deterministic');
  });

  it('a bare bundle is read as before, with no artifact', async () => {
    const input = await readAttemptFile(
      new URL('fixtures/attempts/valid/solved-no-denials.json', REPO).pathname,
    );
    expect(input.evalSession).toBeUndefined();
  });

  const rows: [string, (dir: string) => Edit | undefined, string, Record<string, unknown>?][] = [
    [
      'no bundle referenced',
      () =>
        ({ nativeExecution: _n, ...a }: Record<string, unknown>) =>
          a,
      'native_bundle_absent',
    ],
    [
      'the bundle elsewhere',
      () => (a) => ({
        ...a,
        nativeExecution: { ...(a.nativeExecution as object), path: 'attempt/other.json' },
      }),
      'native_bundle_missing',
    ],
    [
      'the bundle above the folder',
      () => (a) => ({
        ...a,
        nativeExecution: { ...(a.nativeExecution as object), path: '../attempt/native-execution.json' },
      }),
      'native_bundle_refused',
    ],
    [
      'another digest',
      () => (a) => ({
        ...a,
        nativeExecution: { ...(a.nativeExecution as object), sha256: `sha256:${'0'.repeat(64)}` },
      }),
      'native_bundle_digest_mismatch',
    ],
    [
      'another size',
      () => (a) => ({ ...a, nativeExecution: { ...(a.nativeExecution as object), byteSize: 1 } }),
      'native_bundle_size_mismatch',
    ],
    ['another attempt', () => (a) => ({ ...a, attemptId: 'attempt_other' }), 'eval_session_attempt_mismatch'],
    [
      'another runnerd',
      () => (a) => ({ ...a, runnerd: { path: '[withheld]', sha256: `sha256:${'d'.repeat(64)}` } }),
      'eval_session_runnerd_mismatch',
    ],
    [
      'another package version',
      () => (a) => ({
        ...a,
        build: {
          ...(a.build as object),
          package: { name: '@paperclipai/paperclip-runner', version: '9.0.0' },
        },
      }),
      'eval_session_package_mismatch',
    ],
    ['another estimate', () => usage({ estimatedCostNanodollars: 1 }), 'eval_session_cost_mismatch'],
    ['another legacy amount', () => usage({ legacyLedgerCostNanodollars: 0 }), 'eval_session_cost_mismatch'],
    [
      'an infrastructure failure the bundle does not record',
      () => (a) => failureShape(a, {}),
      'eval_session_outcome_mismatch',
    ],
    [
      'a runnerd other than the qualified one',
      () => undefined,
      'runnerd_not_qualified',
      { qualifiedRunnerdSha256: `sha256:${'9'.repeat(64)}` },
    ],
  ];

  it.each(rows)('%s → %s', async (_name, edit, code, options = {}) => {
    const { artifactPath } = writeCase(edit('') ?? ((a) => a));
    const error = await refusal(artifactPath, options);
    expect(error.issues.map((entry) => entry.code)).toContain(code);
  });

  it('a bundle recording an infrastructure failure the artifact does not state is refused', async () => {
    const { artifactPath } = writeCase(
      undefined,
      directBundle({ classification: 'infrastructure', code: 'provider_turn_timeout', message: 'x' }),
    );
    expect((await refusal(artifactPath)).issues.map((entry) => entry.code)).toContain(
      'eval_session_outcome_mismatch',
    );
  });

  it('a failure artifact whose bundle records that failure is read', async () => {
    const bundle = directBundle({
      classification: 'infrastructure',
      code: 'provider_turn_timeout',
      message: 'x',
    });
    const { artifactPath } = writeCase((a) => failureShape(a, {}), bundle);
    expect((await readAttemptFile(artifactPath)).evalSession?.artifact.infrastructureFailure?.class).toBe(
      'provider_turn_timeout',
    );
  });

  it('a bundle reached through a symbolic link is refused', async () => {
    const { artifactPath, dir } = writeCase((a) => ({
      ...a,
      nativeExecution: { ...(a.nativeExecution as object), path: 'linked/native-execution.json' },
    }));
    symlinkSync(join(dir, 'attempt'), join(dir, 'linked'));
    expect((await refusal(artifactPath)).issues.map((entry) => entry.code)).toContain(
      'native_bundle_refused',
    );
  });

  it('an artifact on standard input cannot find its bundle: refused; a bundle there is read', async () => {
    const { artifactPath } = writeCase();
    await expect(readAttemptStream(Readable.from([readFileSync(artifactPath)]))).rejects.toMatchObject({
      issues: [expect.objectContaining({ code: 'native_bundle_unreachable' })],
    });
    const bundle = readFileSync(new URL('fixtures/attempts/valid/solved-no-denials.json', REPO));
    expect((await readAttemptStream(Readable.from([bundle]))).evalSession).toBeUndefined();
  });

  it('a bare bundle naming another runnerd than the qualified one is refused too', async () => {
    const error = await refusal(new URL('fixtures/attempts/valid/solved-no-denials.json', REPO).pathname, {
      qualifiedRunnerdSha256: `sha256:${'9'.repeat(64)}`,
    });
    expect(error.code).toBe('paperclip_native_execution_invalid');
    expect(error.issues).toEqual([
      expect.objectContaining({ code: 'runnerd_not_qualified', path: '/runner/binary/sha256' }),
    ]);
  });

  describe('when the artifact references no bundle (upstream writes none)', () => {
    const bare = (): string => {
      const { artifactPath } = writeCase(({ nativeExecution: _n, ...a }: Record<string, unknown>) => a);
      return artifactPath;
    };

    it('reads it alone for validate and ingest: no bundle, the artifact and its digest', async () => {
      const artifactPath = bare();
      const read = await readAttemptReadFile(artifactPath);
      expect(read.bundle).toBeNull();
      expect(read.fileSha256).toBe(sha256(readFileSync(artifactPath)));
      expect(read.evalSession?.artifactSha256).toBe(read.fileSha256);
    });

    it('reads it alone from standard input too (there is no bundle to reach)', async () => {
      const read = await readAttemptReadStream(Readable.from([readFileSync(bare())]));
      expect(read.bundle).toBeNull();
    });

    it('still refuses it where a bundle is needed (native_bundle_absent)', async () => {
      expect((await refusal(bare())).issues.map((entry) => entry.code)).toEqual(['native_bundle_absent']);
    });

    it('still enforces the qualified runnerd', async () => {
      await expect(
        readAttemptReadFile(bare(), { qualifiedRunnerdSha256: `sha256:${'9'.repeat(64)}` }),
      ).rejects.toMatchObject({ issues: [expect.objectContaining({ code: 'runnerd_not_qualified' })] });
    });
  });
});

// A campaign try's folder holds other JSON than attempts (its request, the session's result, the
// artifact-root manifest, denial records): each refused fail closed, naming what it declares (or
// that it declares none), what is read instead, and where the artifacts are.
describe('parseAttemptRead: a file that is no attempt input', () => {
  it.each([
    [
      'a request',
      { schema: 'paperclip-runner/eval-session-request/v1', attemptId: 'a' },
      'paperclip-runner/eval-session-request/v1',
    ],
    ['a run result', { schema: 'paperclip.run_result.v1' }, 'paperclip.run_result.v1'],
    [
      'an artifact-root manifest',
      { schema: 'paperclip-runner/artifact-root/v1' },
      'paperclip-runner/artifact-root/v1',
    ],
    [
      'a later bundle version',
      { schema: 'paperclip-runner/native-execution/v2' },
      'paperclip-runner/native-execution/v2',
    ],
    ['a denial record (no schema)', { callId: 'c1', code: 'denied' }, 'missing'],
  ])('%s → native_schema_unknown naming it', async (_name, value, received) => {
    const error = await parseAttemptRead(Buffer.from(JSON.stringify(value)), null).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'paperclip_native_execution_invalid' });
    const { issues } = error as {
      issues: { code: string; path: string; message: string; expected: unknown; received: unknown }[];
    };
    expect(issues).toHaveLength(1);
    const [issue] = issues;
    expect(issue).toMatchObject({
      code: 'native_schema_unknown',
      path: '/schema',
      expected: 'paperclip-runner/native-execution/v1 or paperclip-runner/eval-session-artifact/v1',
      received,
    });
    expect(issue?.message).toContain(
      received === 'missing' ? 'declares no schema' : `declares schema ${JSON.stringify(received)}`,
    );
    expect(issue?.message).toMatch(
      /attempt bundle \(paperclip-runner\/native-execution\/v1\) or an eval-session artifact \(paperclip-runner\/eval-session-artifact\/v1/,
    );
    expect(issue?.message).toContain('output/artifact.json');
  });

  it('a schema that is no string is named by its kind', async () => {
    const error = await parseAttemptRead(Buffer.from('{"schema":{"v":1}}'), null).catch(
      (caught: unknown) => caught,
    );
    expect((error as { issues: { message: string }[] }).issues[0]?.message).toMatch(
      /^this file's "schema" is not a string \(object\): Evals reads only/,
    );
  });

  it('text that is no JSON object keeps the parser’s own issue', async () => {
    const error = await parseAttemptRead(Buffer.from('[1]'), null).catch((caught: unknown) => caught);
    expect((error as { issues: { code: string }[] }).issues.map((issue) => issue.code)).toEqual([
      'json_not_object',
    ]);
  });
});
