// Drives an in-process EvaluateSession one frame at a time, the way a consumer would.
import { EvaluateSession } from '../../src/producer.ts';

import type { evaluateEvent } from '../../src/engine.ts';

export interface Driven {
  send(frame: unknown): Record<string, unknown> | undefined;
  /** Sends a raw line (no JSON encoding), for tokens JSON.stringify cannot write. */
  sendLine(line: string): Record<string, unknown> | undefined;
  readonly diagnostics: string[];
  readonly session: EvaluateSession;
}

export function drive(evaluate?: typeof evaluateEvent): Driven {
  const diagnostics: string[] = [];
  const session = new EvaluateSession((message) => diagnostics.push(message), evaluate);
  const sendLine = (line: string): Record<string, unknown> | undefined => {
    const reply = session.handle({ kind: 'line', text: line });
    return reply === undefined ? undefined : (JSON.parse(reply) as Record<string, unknown>);
  };
  return { send: (frame) => sendLine(JSON.stringify(frame)), sendLine, diagnostics, session };
}
