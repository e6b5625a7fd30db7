// An eval-session artifact and its bundle, written to a fresh folder: the cases the attempt
// reader's tests (eval-session-input, size-before-read) start from. removeCases() removes them.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO = new URL('../../../../', import.meta.url);
export const FIXTURE = JSON.parse(
  readFileSync(new URL('fixtures/attempts/valid/solved-no-denials.json', REPO), 'utf8'),
) as Record<string, unknown>;
export const sha256 = (bytes: Buffer | string): string =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const dirs: string[] = [];

/** Removes every folder writeCase made. */
export function removeCases(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A direct session's bundle (seed 001 cost figures) from a repo fixture. */
export function directBundle(failure: unknown = null): Record<string, unknown> {
  const usage = FIXTURE.usage as Record<string, unknown>;
  return {
    ...FIXTURE,
    usage: {
      ...usage,
      cost: null,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: 2_600_000,
      pricingVersion: 'list-2026-12',
      costCoverage: 'estimated',
      legacyLedgerCostNanodollars: 5_000_000,
    },
    failure,
  };
}

export const BINARY = (FIXTURE.runner as { binary: { sha256: string } }).binary.sha256;

export function artifactFor(bundleBytes: Buffer, bundle: Record<string, unknown>): Record<string, unknown> {
  const usage = bundle.usage as Record<string, unknown>;
  return {
    schema: 'paperclip-runner/eval-session-artifact/v1',
    attemptId: (bundle.identity as { attemptId: string }).attemptId,
    build: {
      schema: 'paperclip-runner/build-metadata/v1',
      package: { name: '@paperclipai/paperclip-runner', version: '0.1.0' },
      contracts: { nativeExecution: 1, runnerdArtifact: 1, harnessDriver: 1, semanticCatalog: 1 },
      prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
      semanticCatalog: { version: 1, sha256: `sha256:${'e'.repeat(64)}` },
    },
    runnerd: { path: '[withheld]', sha256: BINARY },
    requestedModel: 'paperclip-deterministic-1',
    provider: 'paperclip_deterministic',
    driver: 'paperclip_deterministic_harness',
    providerVersion: '1.0.0',
    providerSessionId: 'session_1',
    turn: { turnId: 'turn_1', status: 'completed', assistantText: 'done' },
    snapshot: { usageLedger: [{ receiptId: 'r1' }] },
    usage: {
      agentTurns: 4,
      providerRequests: 4,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: usage.estimatedCostNanodollars,
      pricingVersion: usage.pricingVersion,
      ratesUsdPerMillionTokens: { input: 2.5, cachedInput: 0.25, output: 10 },
      costCoverage: 'estimated',
      legacyLedgerCostNanodollars: usage.legacyLedgerCostNanodollars,
    },
    timing: {
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:01.000Z',
      durationMs: 1000,
    },
    nativeExecution: {
      path: 'attempt/native-execution.json',
      sha256: sha256(bundleBytes),
      byteSize: bundleBytes.length,
    },
  };
}

/** A folder with the bundle at attempt/native-execution.json and the artifact (edited) beside it. */
export function writeCase(
  edit: (artifact: Record<string, unknown>) => unknown = (artifact) => artifact,
  bundle: Record<string, unknown> = directBundle(),
): { dir: string; artifactPath: string; artifact: Record<string, unknown> } {
  const dir = mkdtempSync(join(tmpdir(), 'eval-session-artifact-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'attempt'));
  const bundleBytes = Buffer.from(`${JSON.stringify(bundle, null, 2)}\n`);
  writeFileSync(join(dir, 'attempt', 'native-execution.json'), bundleBytes);
  const artifact = edit(artifactFor(bundleBytes, bundle)) as Record<string, unknown>;
  const artifactPath = join(dir, 'artifact.json');
  writeFileSync(artifactPath, JSON.stringify(artifact));
  return { dir, artifactPath, artifact };
}
