// Native-execution attempts as traces: every example attempt converts to a valid trace, tool steps
// follow the semantic tool calls, and a denial is visible in its step's result.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseNativeExecution } from '@paperclip-evals/contract';
import { describe, expect, it } from 'vitest';

import { evaluateAssertions } from '../src/evaluate.ts';
import { toTrace } from '../src/native-trace.ts';
import { traceFromJSON } from '../src/trace.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid/', import.meta.url));
const attempt = (name: string) => parseNativeExecution(readFileSync(join(VALID, name)));

describe('toTrace', () => {
  it.each(readdirSync(VALID).filter((name) => name.endsWith('.json')))(
    'turns %s into a valid trace',
    (name) => {
      const bundle = attempt(name);
      const trace = traceFromJSON(JSON.parse(JSON.stringify(toTrace(bundle))));
      expect(trace.steps?.map((step) => step.name)).toEqual(
        bundle.semanticTools.calls.map((call) => call.operationId),
      );
      expect(trace.metadata?.total_tokens).toBe(bundle.usage.totalTokens);
      expect(trace.output.run_terminal_state).toBe(bundle.terminal.runTerminalState);
    },
  );

  it('shows a denial in the denied step’s result, where assertions can see it', async () => {
    const trace = toTrace(attempt('denied-tool-call.json'));
    expect(trace.steps?.[0]?.result).toMatchObject({
      outcome: 'denied',
      denial: { code: 'required_claim_missing', authorization_boundary: 'grant', retryable: false },
    });
    const { results } = await evaluateAssertions(trace, [
      {
        assertion_id: 'denied',
        type: 'content',
        spec: {
          target: "steps[?name=='decide_approval'].result.outcome",
          check: 'contains',
          value: 'denied',
          case_sensitive: true,
        },
      },
      { assertion_id: 'read', type: 'trace', spec: { check: 'required_tools', tools: ['read_document'] } },
      {
        assertion_id: 'cost',
        type: 'constraint',
        spec: { field: 'metadata.cost_usd', operator: 'eq', value: 0.00375 },
      },
    ]);
    expect(results.map((result) => result.status)).toEqual(['pass', 'pass', 'pass']);
  });

  it('leaves cost_usd out when the provider reported no cost (unknown, not 0)', () => {
    const trace = toTrace(attempt('unpriced-provider.json'));
    expect(trace.metadata).not.toHaveProperty('cost_usd');
  });
});
