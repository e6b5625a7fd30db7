// `evals init` tells a new user to list each case and config "with the sha256 of its definition
// (evals digest --canonical FILE)". A definition kept in YAML is read as the environment loader
// reads YAML (the same strict parser), so the digest printed is the canonical digest of its value —
// the same as the definition in JSON, the rule the demo suite's digests follow — and an attempt
// carrying it is of the suite when the environment lists it; strict YAML's refusals hold here too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { canonicalDigest } from '@paperclip-evals/contract';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

let dir: string;
const evals = (args: readonly string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8' });

// A case definition as a user writes it in YAML (anchors, flow style, a block scalar), and its value.
const CASE_YAML = [
  'id: case_synthetic',
  'prompt: |',
  '  Summarise the brief.',
  'session: &s { behaviour: succeed }',
  'checks:',
  '  - { id: few-tool-calls, type: constraint, spec: { field: steps.length, operator: lte, value: 20 } }',
  'again: *s',
  '',
].join('\n');
const CASE_VALUE = {
  id: 'case_synthetic',
  prompt: 'Summarise the brief.\n',
  session: { behaviour: 'succeed' },
  checks: [
    { id: 'few-tool-calls', type: 'constraint', spec: { field: 'steps.length', operator: 'lte', value: 20 } },
  ],
  again: { behaviour: 'succeed' },
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-digest-definition-'));
  writeFileSync(join(dir, 'case.yaml'), CASE_YAML);
  writeFileSync(join(dir, 'case.yml'), CASE_YAML);
  writeFileSync(join(dir, 'case.json'), JSON.stringify(CASE_VALUE, null, 2));
  writeFileSync(join(dir, 'dup.yaml'), 'id: a\nid: b\n');
  writeFileSync(join(dir, 'tag.yaml'), 'id: !custom a\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals digest --canonical on a definition', () => {
  it('prints for YAML the canonical digest of its value: the same as the JSON definition', () => {
    const run = evals(['digest', '--canonical', 'case.yaml', 'case.yml', 'case.json', '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const digests = (JSON.parse(run.stdout) as { files: { sha256: string }[] }).files.map(
      (file) => file.sha256,
    );
    expect(digests).toEqual(Array(3).fill(canonicalDigest(CASE_VALUE)));
  });

  it('the digest printed is the one the environment check expects of an attempt', () => {
    const printed = evals(['digest', '--canonical', 'case.yaml']).stdout.split(' ')[0] ?? '';
    const attempt = syntheticAttempt({ attemptId: 'a0' }) as { input: Record<string, string> };
    const environment = (caseSha256: string) =>
      JSON.stringify({
        schema: 'paperclip-evals/environment/v1',
        name: 'digest-suite',
        cases: [{ id: 'case_synthetic', sha256: caseSha256 }],
        configs: [{ id: 'config_synthetic', sha256: attempt.input.configSha256, model: 'm', driver: 'd' }],
      });
    writeFileSync(join(dir, 'ours.json'), environment(printed));
    writeFileSync(join(dir, 'other.json'), environment(canonicalDigest({ ...CASE_VALUE, prompt: 'other' })));
    writeFileSync(
      join(dir, 'a0.json'),
      JSON.stringify({ ...attempt, input: { ...attempt.input, caseSha256: printed } }),
    );
    const other = evals([
      'ingest',
      'a0.json',
      '--env',
      'other.json',
      '--store',
      'sqlite:other.sqlite',
      '--json',
    ]);
    expect(other.status).not.toBe(0);
    expect(other.stdout).toContain('case_digest_differs');
    const ours = evals([
      'ingest',
      'a0.json',
      '--env',
      'ours.json',
      '--store',
      'sqlite:ours.sqlite',
      '--json',
    ]);
    expect(ours.stderr).toBe('');
    expect(ours.status).toBe(0);
  });

  it.each([
    ['dup.yaml', 'yaml_duplicate_key'],
    ['tag.yaml', 'yaml_tag_resolve_failed'],
  ])('%s is refused as the environment loader refuses it (%s)', (file, code) => {
    const run = evals(['digest', '--canonical', file, '--json']);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: { code: 'paperclip_contract_document_invalid', issues: [{ code }] },
    });
  });
});
