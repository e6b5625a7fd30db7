// The Attest conformance suite: the real `evals-engine` process, spawned as the Attest SDK spawns
// ATTEST_ENGINE_PATH, driven over stdio through every row of the conformance table — each the exact
// assertion a public SDK builder sends — and compared with the real Attest engine's verdict written
// next to it (or, where a row says so, the answer seed 003 prescribes or our stricter one).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EngineProcess } from '@paperclip-evals/test-kit/engine-process';
import { sdk } from './conformance/attest-sdk-builders.ts';
import { CONFORMANCE_ROWS, TRACES } from './conformance/attest-conformance-table.ts';

import type { ConformanceRow } from './conformance/attest-conformance-table.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS_ENGINE = join(ROOT, 'packages/cli/bin/evals-engine.js');

interface Row {
  assertion_id: string;
  status: string;
  score: number;
  reason?: string;
  failure_class?: string;
  explanation: string;
}

/** ExpectChain's ids: assert_ and 8 hex digits. */
const idOf = (index: number): string => `assert_${index.toString(16).padStart(8, '0')}`;

describe('the conformance table', () => {
  it('has at least 200 rows, covering every builder method of the SDK', () => {
    expect(CONFORMANCE_ROWS.length).toBeGreaterThanOrEqual(200);
    const called = new Set(CONFORMANCE_ROWS.map((row) => row.call.slice(0, row.call.indexOf('('))));
    expect([...called].sort()).toEqual(Object.keys(sdk).sort());
  });

  it('names the real engine source of every verdict, and the reason of every difference', () => {
    for (const row of CONFORMANCE_ROWS) {
      expect(row.source).toMatch(/^engine\/internal\/[a-z_/]+\.go [A-Z]\w*(\.\w+)?/);
      if (row.ours !== undefined) expect(row.ours.why).toMatch(/^(seed 003|ours deliberately stricter): /);
    }
  });
});

describe('evals-engine against the real Attest engine, row by row', () => {
  let engine: EngineProcess;
  const answers = new Map<string, Row>();

  beforeAll(async () => {
    engine = EngineProcess.start('node', [EVALS_ENGINE, '--log-level=warn']);
    engine.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        sdk_name: 'attest-typescript',
        sdk_version: '0.5.0',
        protocol_version: 1,
        required_capabilities: ['layers_1_4'],
        preferred_encoding: 'json',
      },
    });
    await engine.next();
    // One batch per row, as a test with one assertion evaluates it; pipelined, answered in order.
    for (const [index, row] of CONFORMANCE_ROWS.entries()) {
      engine.send({
        jsonrpc: '2.0',
        id: index + 1,
        method: 'evaluate_batch',
        params: { trace: TRACES[row.trace], assertions: [{ assertion_id: idOf(index), ...row.assertion }] },
      });
    }
    for (const index of CONFORMANCE_ROWS.keys()) {
      const reply = await engine.next();
      expect(reply.id).toBe(index + 1);
      const [result] = (reply.result?.results ?? []) as Row[];
      if (result !== undefined) answers.set(result.assertion_id, result);
    }
  }, 120_000);

  afterAll(() => {
    engine.kill();
  });

  const expected = (row: ConformanceRow): Partial<Row> => {
    if (row.ours !== undefined) {
      const { why: _why, ...ours } = row.ours;
      return ours;
    }
    return { status: row.real.status };
  };

  it.each(CONFORMANCE_ROWS.map((row, index) => [index, row.trace, row.call, row] as const))(
    'row %i: %s trace, %s',
    (index, _trace, _call, row) => {
      const answer = answers.get(idOf(index));
      expect(answer, `no result for row ${index}`).toBeDefined();
      expect(answer, `${row.call} on ${row.trace}: ${answer?.explanation ?? ''}`).toMatchObject(
        expected(row),
      );
      if (row.ours === undefined && row.real.status !== 'not_evaluated') {
        const score = row.real.score ?? (row.real.status === 'pass' ? 1 : 0);
        expect(answer?.score).toBeCloseTo(score, 12);
      }
    },
  );
});
