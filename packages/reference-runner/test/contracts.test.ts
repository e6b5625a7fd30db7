// The package root: PRP validators against the shipped schemas, the semantic-tool contracts, and
// the rule that no test double is reachable from `.`.
import './support/protocol.js';

import { describe, expect, it } from 'vitest';

import * as root from '../src/index.js';
import { validatePrpEvent, validatePrpTerminal, SEMANTIC_TOOL_OUTCOMES } from '../src/index.js';

const event = {
  schema: 'paperclip.prp.event.v1',
  sourceEventId: 'e1',
  sourceSeq: 1,
  sourceInstanceId: 'runner_1',
  sourceKind: 'runner',
  runId: 'run_1',
  eventType: 'run.terminal',
  schemaVersion: 1,
  priority: 0,
  emittedAt: '2026-01-01T00:00:00.000Z',
  payload: {
    schema: 'paperclip.prp.terminal.v1',
    turnTerminalState: 'completed',
    runTerminalState: 'succeeded',
    reportedWorkDisposition: 'done',
  },
};

describe('the package root', () => {
  it('exports no test double (nothing named Fake, Deterministic, Conformance, Mock, Stub or Testing)', () => {
    const doubles = Object.keys(root).filter((name) =>
      /Fake|Deterministic|Conformance|Mock|Stub|Testing/i.test(name),
    );
    expect(doubles).toEqual([]);
  });

  it('lists the six semantic tool outcomes', () => {
    expect(SEMANTIC_TOOL_OUTCOMES).toEqual([
      'succeeded',
      'denied',
      'conflict',
      'duplicate',
      'unavailable',
      'failed',
    ]);
  });
});

describe('validatePrpEvent', () => {
  it('accepts a run.terminal event with a valid terminal payload', () => {
    expect(validatePrpEvent(event)).toEqual({ valid: true, errors: [] });
  });

  it('refuses a run.terminal event whose payload is not a terminal record, with the path', () => {
    const result = validatePrpEvent({
      ...event,
      payload: { ...event.payload, runTerminalState: 'exploded' },
    });
    expect(result.valid).toBe(false);
    expect(result.errors.map((error) => error.path)).toContain('/payload/runTerminalState');
  });

  it('refuses an unknown event type and a non-date emittedAt', () => {
    const result = validatePrpEvent({ ...event, eventType: 'run.exploded', emittedAt: 'yesterday' });
    expect(result.errors.map((error) => error.path).sort()).toEqual(['/emittedAt', '/eventType']);
  });

  it('never throws, even for non-objects', () => {
    expect(validatePrpEvent(null).valid).toBe(false);
    expect(validatePrpEvent('event').valid).toBe(false);
  });
});

describe('validatePrpTerminal', () => {
  it('accepts a terminal record and keeps additive fields legal', () => {
    expect(validatePrpTerminal({ ...event.payload, x_extra: 1 }).valid).toBe(true);
  });

  it('refuses a terminal record without a disposition', () => {
    const terminal: Record<string, unknown> = { ...event.payload };
    delete terminal.reportedWorkDisposition;
    expect(validatePrpTerminal(terminal).valid).toBe(false);
  });
});
