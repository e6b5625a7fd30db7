// installConsumer's failure message names the command line it ran exactly once (the pnpm command
// and its arguments), not the pnpm prefix twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { installConsumer } from '../src/consumer.ts';

let parent: string;

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'qualification-consumer-'));
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('when pnpm install fails', () => {
  it('reports the command line once, prefix and all', async () => {
    const pnpm = [process.execPath, '-e', 'process.exit(3)', '--'];
    const outcome = await installConsumer({
      consumerDir: join(parent, 'consumer'),
      packageName: '@paperclipai/paperclip-runner',
      packageDir: join(parent, 'package'),
      pnpm,
    });
    expect(outcome.issues).toHaveLength(1);
    const message = outcome.issues[0]!.message;
    expect(outcome.issues[0]!.code).toBe('consumer_install_failed');
    expect(message).toBe(
      `${pnpm.join(' ')} install --offline --ignore-workspace --ignore-scripts --reporter=append-only exited with code 3`,
    );
    expect(message.split(process.execPath)).toHaveLength(2);
  });
});
