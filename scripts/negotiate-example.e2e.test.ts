// The negotiate example of docs/runnerd-and-negotiation.md runs as written: the block marked
// `negotiate-example` is extracted from the doc (and must stand in the README word for word), run
// with bash from the repository root — it builds the reference runner's paperclip-runnerd and
// negotiates the committed examples/negotiate/ documents against it — and must print a compatible
// receipt with exit 0. Nothing from ../shared is used, so it holds on a fresh clone.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MARKER = '<!-- negotiate-example:';

/** The ```sh block right after the marker in `file`. */
function exampleBlock(file: string): string {
  const text = readFileSync(`${ROOT}${file}`, 'utf8');
  const at = text.indexOf(MARKER);
  expect(at, `${file} has no ${MARKER} block`).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  expect(block, `${file}: no sh block after the marker`).not.toBeNull();
  return block?.[1] ?? '';
}

describe('the documented negotiate example', () => {
  it('is the same block in the README and in docs/runnerd-and-negotiation.md', () => {
    expect(exampleBlock('README.md')).toBe(exampleBlock('docs/runnerd-and-negotiation.md'));
  });

  it('runs as written from the repository root: compatible, exit 0', () => {
    const script = exampleBlock('docs/runnerd-and-negotiation.md');
    expect(script).toContain('evals negotiate');
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 300_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^compatible {2}paperclip-evals ↔ @paperclipai\/paperclip-runner 0\.4\.0$/m);
  });
});
