// `evals runnerd inspect` and `evals negotiate` end to end: the real CLI against a real executable
// (a shell script standing in for runnerd) and real contract documents written to a temp folder.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { canonicalDigest } from '../../contract/src/digest.ts';
import { catalog, requirements, writeNegotiationDocuments } from './support/negotiation-documents.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

let dir = '';
let runnerdSha256 = '';
const files = (name: string): string => join(dir, name);

const runnerdMetadata = {
  schema: 'paperclip-runner/runnerd-build-metadata/v1',
  binaryName: 'paperclip-runnerd',
  packageName: '@paperclipai/paperclip-runner',
  packageVersion: '0.4.2',
  binaryContractVersion: 2,
  nativeExecutionVersion: 1,
  harnessDriverVersion: 1,
  prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 2 },
  buildProfile: 'release',
  x_future: 'kept',
};
function evals(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8', input: '' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const negotiateArgs = (
  requirementsFile = 'requirements.json',
  runnerd = { file: 'paperclip-runnerd', sha256: runnerdSha256 },
): string[] => [
  'negotiate',
  '--package-metadata',
  'package-metadata.json',
  '--requirements',
  requirementsFile,
  '--catalog',
  'catalog.json',
  '--runnerd',
  runnerd.file,
  '--runnerd-sha256',
  runnerd.sha256,
  '--json',
];

/** A shell script standing in for runnerd, printing `metadata`; its file name and digest. */
function fakeRunnerd(file: string, metadata: object): { file: string; sha256: string } {
  const script = `#!/bin/sh\nprintf '%s' '${JSON.stringify(metadata)}'\n`;
  writeFileSync(files(file), script, { mode: 0o755 });
  return { file, sha256: `sha256:${createHash('sha256').update(script).digest('hex')}` };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-negotiate-e2e-'));
  runnerdSha256 = fakeRunnerd('paperclip-runnerd', runnerdMetadata).sha256;
  writeNegotiationDocuments(dir);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals runnerd inspect', () => {
  it('prints the verified artifact, its profile and unknown metadata fields', () => {
    const run = evals([
      'runnerd',
      'inspect',
      '--path',
      'paperclip-runnerd',
      '--sha256',
      runnerdSha256,
      '--json',
    ]);
    expect(run.status).toBe(0);
    const artifact = JSON.parse(run.stdout) as {
      sha256: string;
      buildMetadata: Record<string, unknown>;
    };
    expect(artifact.sha256).toBe(runnerdSha256);
    expect(artifact).not.toHaveProperty('buildProfile');
    expect(artifact.buildMetadata.x_future).toBe('kept');
  });

  it('exits 4 with digest_mismatch for the wrong digest', () => {
    const run = evals([
      'runnerd',
      'inspect',
      '--path',
      'paperclip-runnerd',
      '--sha256',
      `sha256:${'0'.repeat(64)}`,
    ]);
    expect(run.status).toBe(4);
    expect(run.stderr).toContain('digest_mismatch');
  });

  it('with --json, still answers a failure as JSON on stdout', () => {
    const run = evals([
      'runnerd',
      'inspect',
      '--path',
      'paperclip-runnerd',
      '--sha256',
      `sha256:${'0'.repeat(64)}`,
      '--json',
    ]);
    expect(run.status).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      code: 'paperclip_runnerd_artifact_invalid',
      issues: [{ code: 'digest_mismatch' }],
    });
  });

  it('exits 4 with digest_invalid for a malformed digest', () => {
    const run = evals(['runnerd', 'inspect', '--path', 'paperclip-runnerd', '--sha256', 'sha256:ABC']);
    expect(run.status).toBe(4);
    expect(run.stderr).toContain('digest_invalid');
  });
});

describe('evals digest', () => {
  it('prints the canonical digest a package names for its catalog, whatever the key order', () => {
    writeFileSync(
      files('catalog-reordered.json'),
      JSON.stringify({ operations: catalog.operations, version: 1, schema: catalog.schema }, null, 2),
    );
    const run = evals(['digest', '--canonical', 'catalog.json', 'catalog-reordered.json']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      `${canonicalDigest(catalog)}  catalog.json\n${canonicalDigest(catalog)}  catalog-reordered.json\n`,
    );
  });
});

describe('evals negotiate', () => {
  it('prints the receipt and exits 0 when every dimension agrees', () => {
    const run = evals(negotiateArgs());
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as {
      compatible: boolean;
      receipt: { negotiatedPrpVersion: number };
    };
    expect(result.compatible).toBe(true);
    expect(result.receipt.negotiatedPrpVersion).toBe(2);
  });

  it('exits 3 listing every mismatch at once', () => {
    writeFileSync(
      files('requirements-broken.json'),
      JSON.stringify({
        ...requirements,
        packageVersion: '0.4.1',
        nativeExecution: 'paperclip-runner/native-execution/v2',
        driver: {
          ...requirements.driver,
          contractVersion: 2,
          requiredCapabilities: ['interrupt', 'snapshot'],
        },
      }),
    );
    const run = evals(negotiateArgs('requirements-broken.json'));
    expect(run.status).toBe(3);
    const result = JSON.parse(run.stdout) as { compatible: boolean; issues: { code: string }[] };
    expect(result.compatible).toBe(false);
    expect(result.issues.map((issue) => issue.code).sort()).toEqual([
      'driver_capability_unsupported',
      'driver_contract_version_mismatch',
      'native_execution_version_mismatch',
      'package_version_mismatch',
    ]);
  });

  it('picks the PRP version as upstream: package ∩ consumer first, then runnerd must speak it (exit 3, that issue alone)', () => {
    // Package 1..2 and consumer 1..2 pick PRP 2; this runnerd speaks 1..1. All three share 1, yet
    // upstream's assertPaperclipRunnerEvalCompatibility says prp_version_no_overlap, and so do we.
    const speaksOne = fakeRunnerd('runnerd-prp-1', {
      ...runnerdMetadata,
      prp: { ...runnerdMetadata.prp, maximumVersion: 1 },
    });
    writeFileSync(
      files('requirements-prp-1-2.json'),
      JSON.stringify({ ...requirements, prp: { minimumVersion: 1, maximumVersion: 2 } }),
    );
    const run = evals(negotiateArgs('requirements-prp-1-2.json', speaksOne));
    expect(run.status).toBe(3);
    const result = JSON.parse(run.stdout) as { compatible: boolean; issues: Record<string, string>[] };
    expect(result.compatible).toBe(false);
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'prp_version_no_overlap',
        component: 'prp',
        expected: '1..2',
        received: 'consumer 1..2; runnerd 1..1',
      }),
    ]);
  });

  it.each([
    ['packageVersion', { packageVersion: ' ' }, '/packageVersion'],
    ['prp.name', { prp: { ...runnerdMetadata.prp, name: '\u3000' } }, '/prp/name'],
  ])(
    'exits 4 with metadata_invalid when runnerd prints a blank %s (as upstream), negotiating nothing',
    (_, change, path) => {
      const blank = fakeRunnerd(`runnerd-blank-${path.replaceAll('/', '-')}`, {
        ...runnerdMetadata,
        ...change,
      });
      const run = evals(negotiateArgs('requirements.json', blank));
      expect(run.status).toBe(4);
      expect(JSON.parse(run.stdout)).toMatchObject({
        ok: false,
        code: 'paperclip_runnerd_artifact_invalid',
        issues: [{ code: 'metadata_invalid', path }],
      });
    },
  );

  it('exits 2 naming the field when the requirements file is not a valid document', () => {
    writeFileSync(
      files('requirements-invalid.json'),
      JSON.stringify({ ...requirements, prp: { minimumVersion: 0 } }),
    );
    const run = evals(negotiateArgs('requirements-invalid.json'));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('paperclip_contract_document_invalid');
    const failure = JSON.parse(run.stdout) as { ok: boolean; code: string; issues: { path: string }[] };
    expect(failure).toMatchObject({ ok: false, code: 'paperclip_contract_document_invalid' });
    expect(failure.issues.map((issue) => issue.path)).toContain('/prp/maximumVersion');
  });
});
