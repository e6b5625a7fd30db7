// The consumer's fast path for a response's trailing state_out (trailingStateOut), held to
// JSON.parse by properties: every register file stateToJSON writes is found and split off, and
// for any edit of a frame, whenever the fast path splits it, the frame parses exactly when the
// head does, to the same members and the same state_out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { I64_MAX, I64_MIN } from '../src/framing.ts';
import { stateToJSON, trailingStateOut } from '../src/state.ts';

import type { Registers } from '../src/state.ts';

const i64 = fc.bigInt({ min: I64_MIN, max: I64_MAX });
const registers: fc.Arbitrary<Registers> = fc.record({
  c: fc.array(i64, { maxLength: 4 }),
  f: fc.array(fc.boolean(), { maxLength: 4 }),
  t: fc.array(i64, { maxLength: 4 }),
  a: fc.array(i64, { maxLength: 4 }),
  run: fc.option(fc.record({ shape: fc.option(fc.string({ unit: 'binary' })), len: i64 })),
});
/** Members before state_out, as a producer might write them (any JSON values, any keys). */
const head = fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 4 });

function frameOf(members: Record<string, unknown>, state: Registers): string {
  return `${JSON.stringify(members).slice(0, -1)},"state_out":${stateToJSON(state)}}`;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

describe('trailingStateOut', () => {
  it('splits off every register file stateToJSON writes, leaving the other members', () => {
    fc.assert(
      fc.property(head, registers, (members, state) => {
        const frame = frameOf(members, state);
        const split = trailingStateOut(frame);
        expect(split?.text).toBe(stateToJSON(state));
        const whole = JSON.parse(frame) as Record<string, unknown>;
        const rest = JSON.parse(split?.head ?? '') as Record<string, unknown>;
        expect(JSON.parse(split?.text ?? '')).toEqual(whole.state_out);
        expect({ ...rest, state_out: whole.state_out }).toEqual(whole);
      }),
    );
  });

  it('agrees with JSON.parse on any edited frame it splits', () => {
    // Edits insert the characters JSON's grammar turns on, so near-misses of it are common.
    const grammar = fc.constantFrom(...'\\"xu0159.eE-+,:{}[] \ttrueflsn'.split(''));
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat(3),
      insert: fc.array(grammar, { maxLength: 3 }).map((chars) => chars.join('')),
    });
    fc.assert(
      fc.property(
        head,
        registers,
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        (members, state, edits) => {
          let frame = frameOf(members, state);
          for (const { at, remove, insert } of edits) {
            const where = at % (frame.length + 1);
            frame = frame.slice(0, where) + insert + frame.slice(where + remove);
          }
          const split = trailingStateOut(frame);
          if (split === undefined) return;
          const whole = parsed(frame);
          const rest = parsed(split.head);
          expect(rest.ok).toBe(whole.ok);
          if (!whole.ok || !rest.ok) return;
          expect(typeof whole.value === 'object' && whole.value !== null && !Array.isArray(whole.value)).toBe(
            true,
          );
          const object = whole.value as Record<string, unknown>;
          expect(JSON.parse(split.text)).toEqual(object.state_out);
          expect({ ...(rest.value as Record<string, unknown>), state_out: object.state_out }).toEqual(object);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('leaves frames it cannot vouch for to JSON.parse', () => {
    const state = stateToJSON({ c: [1n], f: [], t: [], a: [], run: null });
    for (const frame of [
      `{,"state_out":${state}}`, // nothing before the member
      `{ ,"state_out":${state}}`,
      `{"a":1,"state_out":${state}} `, // trailing whitespace
      `{"a":1,"state_out":${state.replace('[1]', '[1.0]')}}`, // a fraction
      `{"a":1,"state_out":${state.replace('[1]', '[01]')}}`, // not JSON
      `{"a":1,"state_out":${state.replace('"c"', ' "c"')}}`, // not as stateToJSON writes it
      `{"a":1,"state_out":${state},"b":2}`, // not last
      ...['\\x', '\\u00zz', '\u0001', '\\'].map(
        (inside) => `{"a":1,"state_out":{"c":[],"f":[],"t":[],"a":[],"run":{"shape":"${inside}","len":1}}}`,
      ), // not a JSON string
    ])
      expect(trailingStateOut(frame), frame).toBeUndefined();
  });
});
