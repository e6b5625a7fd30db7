// A wrong --artifact-root must not look like "all unverified" (docs/ingest.md): ingest names every
// referenced file absent under the root (the bundle, the uri, the path it looked at), and a root that
// holds none of the referenced files — one level too deep, say — is the coded warning
// artifact_root_holds_none on stderr with the fix (rootHoldsNone in --json), while a root that holds
// all but one names only that one and gives no warning.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

type Ref = { uri: string; sha256: string; byteSize: number };
type Bundle = Record<string, unknown> & { transcript: Ref; artifacts: Ref[] };

let dir: string;
let transcriptPath = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-artifact-root-missing-'));
  mkdirSync(join(dir, 'runs'));
  const bundle = syntheticAttempt({ attemptId: 'a0' }) as Bundle;
  for (const ref of [bundle.transcript, ...bundle.artifacts]) {
    const bytes = `${ref.uri}\n`;
    const file = join(dir, 'out', ref.uri.slice('artifact://native/'.length));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, bytes);
    ref.sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    ref.byteSize = Buffer.byteLength(bytes);
  }
  transcriptPath = join(dir, 'out', bundle.transcript.uri.slice('artifact://native/'.length));
  writeFileSync(join(dir, 'runs', 'a0.json'), JSON.stringify(bundle));
  mkdirSync(join(dir, 'out', 'deeper'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Missing {
  count: number;
  found: number;
  rootHoldsNone: boolean;
  files: { input: string; uri: string; expectedAt: string }[];
}

describe('when --artifact-root is the wrong folder', () => {
  it('a root that holds none of the files: every one named, and the coded warning with the fix', async () => {
    const result = await evalsInProcess(
      ['ingest', 'runs', '--artifact-root', 'out/deeper', '--store', 'sqlite:a.sqlite'],
      dir,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /missing {4}runs\/a0\.json {2}artifact:\/\/native\/\S+: no file at out\/deeper\//,
    );
    expect(result.stderr).toContain(
      'warning artifact_root_holds_none: --artifact-root out/deeper holds none of the',
    );
    expect(result.stderr).toContain('most likely the wrong folder');
    const json = await evalsInProcess(
      ['ingest', 'runs', '--artifact-root', 'out/deeper', '--store', 'sqlite:b.sqlite', '--json'],
      dir,
    );
    const missing = (JSON.parse(json.stdout) as { artifactsMissing: Missing }).artifactsMissing;
    expect(missing.rootHoldsNone).toBe(true);
    expect(missing.found).toBe(0);
    expect(missing.count).toBeGreaterThan(0);
    expect(missing.files).toHaveLength(missing.count);
    expect(json.stderr).toContain('artifact_root_holds_none');
  });

  it('the right root: verified, nothing missing, no warning', async () => {
    const result = await evalsInProcess(
      ['ingest', 'runs', '--artifact-root', 'out', '--store', 'sqlite:c.sqlite', '--json'],
      dir,
    );
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      artifacts: { verified: number };
      artifactsMissing: Missing;
    };
    expect(report.artifacts.verified).toBe(1);
    expect(report.artifactsMissing.found).toBeGreaterThan(0);
    expect(report.artifactsMissing).toEqual({
      count: 0,
      found: report.artifactsMissing.found,
      rootHoldsNone: false,
      files: [],
    });
    expect(result.stderr).not.toContain('artifact_root_holds_none');
  });

  it('one file missing under the right root: that file named, no wrong-root warning', async () => {
    unlinkSync(transcriptPath);
    const result = await evalsInProcess(
      ['ingest', 'runs', '--artifact-root', 'out', '--store', 'sqlite:d.sqlite'],
      dir,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `no file at ${join('out', transcriptPath.slice(join(dir, 'out').length + 1))} (unverified)`,
    );
    expect(result.stdout.match(/^missing /gm)).toHaveLength(1);
    expect(result.stderr).not.toContain('artifact_root_holds_none');
  });
});
