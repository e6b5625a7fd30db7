// The eval-session logic runnerd runs: for every behaviour, a bundle that both the package's parser
// and Evals' parser accept, whose transcript and artifact digests are those of the files it returns.
import './support/protocol.js';

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { parseNativeExecution as evalsParseNativeExecution } from '../../contract/src/index.ts';
import { parsePaperclipNativeExecution } from '../src/evals/index.js';
import { runEvalSession } from '../src/session/eval-session.js';
import { DETERMINISTIC_BEHAVIOURS } from '../src/testing/deterministic-driver.js';
import { evalSessionRequest as request } from './support/requests.js';

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const BINARY = `sha256:${'c'.repeat(64)}`;

describe('runEvalSession', () => {
  it.each(DETERMINISTIC_BEHAVIOURS)(
    '%s: both parsers accept the bundle and its digests are the files’',
    async (behaviour) => {
      const outcome = await runEvalSession(request(behaviour), { binarySha256: BINARY });
      expect(() => evalsParseNativeExecution(outcome.bundleText)).not.toThrow();
      expect(() => parsePaperclipNativeExecution(JSON.parse(outcome.bundleText))).not.toThrow();
      const files = new Map(outcome.files.map((file) => [file.relativePath, file.bytes]));
      const { bundle } = outcome;
      for (const reference of [bundle.transcript, ...bundle.artifacts]) {
        const bytes = files.get(reference.uri.replace('artifact://native/', ''))!;
        expect(sha256(bytes)).toBe(reference.sha256);
        expect(bytes.length).toBe(reference.byteSize);
      }
      const root = files.get(`${bundle.identity.attemptId}/artifact-root.json`)!;
      expect(sha256(root)).toBe(bundle.artifactRoot.sha256);
      const lines = files
        .get(`${bundle.identity.attemptId}/transcript.jsonl`)!
        .toString('utf8')
        .trimEnd()
        .split('\n');
      expect(lines).toHaveLength(bundle.transcript.eventCount);
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(bundle.events.slice(0, lines.length));
      expect(bundle.runner.binary.sha256).toBe(BINARY);
      expect(outcome.infrastructureFailure).toBe(behaviour === 'harness_crash');
    },
  );

  it('is deterministic: the same request gives the same bytes', async () => {
    const first = await runEvalSession(request('deny_tool'), { binarySha256: BINARY });
    const second = await runEvalSession(request('deny_tool'), { binarySha256: BINARY });
    expect(second.bundleText).toBe(first.bundleText);
    expect(second.files).toEqual(first.files);
  });

  it('records the behaviours the way Evals reads them', async () => {
    const bundles = Object.fromEntries(
      await Promise.all(
        DETERMINISTIC_BEHAVIOURS.map(
          async (behaviour) =>
            [behaviour, (await runEvalSession(request(behaviour), { binarySha256: BINARY })).bundle] as const,
        ),
      ),
    );
    expect(bundles.unpriced!.usage.cost).toBeNull();
    expect(bundles.incomplete!.transcript).toMatchObject({
      complete: false,
      omissionReason: expect.stringMatching(/cap/) as unknown,
    });
    expect(bundles.deny_tool!.semanticTools.denials).toHaveLength(1);
    expect(bundles.over_budget!.terminal.runTerminalState).toBe('cancelled');
    expect(bundles.over_budget!.failure?.classification).toBe('budget');
    expect(bundles.fail!.terminal.runTerminalState).toBe('failed');
    expect(bundles.harness_crash!.failure?.classification).toBe('infrastructure');
  });
});
