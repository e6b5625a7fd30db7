// The generic check runner (src/checks/runner.ts) and qualification's table of checks: a table is
// refused at definition time when ids repeat, a need is unknown or the needs form a cycle; a plan
// runs in dependency order; a check whose need gave nothing is skipped "needs X", transitively.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { QUALIFICATION_CHECKS, QUALIFICATION_PLAN } from '../src/checks/index.ts';
import { defineChecks, runChecks } from '../src/checks/runner.ts';
import { QualificationError } from '../src/errors.ts';
import { QUALIFICATION_CHECK_IDS } from '../src/record.ts';

import type { CheckDefinition, Outcome } from '../src/checks/runner.ts';

type Id = string;
type Log = Id[];
type Def = CheckDefinition<Id, Log, never>;

/** A check that logs that it ran, then returns `outcome` (default: pass with a value). */
const check = (
  id: Id,
  needs: readonly Id[] = [],
  outcome: Outcome<Id, unknown, never> = { status: 'pass', detail: `${id} ok`, value: id },
  extra: Partial<Def> = {},
): Def => ({
  id,
  needs,
  run: (log) => {
    log.push(id);
    return outcome;
  },
  ...extra,
});

const failed = (id: Id): Outcome<Id, unknown, never> => ({
  status: 'fail',
  detail: `${id} failed`,
  issues: [],
});

async function run(
  table: readonly Def[],
): Promise<{ log: Log; detail: Record<Id, string>; status: Record<Id, string> }> {
  const log: Log = [];
  const results = await runChecks(defineChecks(table), log);
  return {
    log,
    detail: Object.fromEntries(results.map((result) => [result.id, result.detail])),
    status: Object.fromEntries(results.map((result) => [result.id, result.status])),
  };
}

describe('defineChecks refuses a table that is not well formed', () => {
  it.each<[string, readonly Def[], RegExp]>([
    ['an id twice', [check('a'), check('b'), check('a')], /check a is defined twice/],
    ['an unknown need', [check('a'), check('b', ['nope'])], /check b needs nope, which is not a check/],
    [
      'an unknown use',
      [check('a', [], undefined, { uses: ['nope'] })],
      /check a needs nope, which is not a check/,
    ],
    ['a check that needs itself', [check('a', ['a'])], /check a needs itself/],
    ['a cycle of two', [check('a', ['b']), check('b', ['a'])], /cycle: a → b → a/],
    [
      'a cycle of three',
      [check('x'), check('a', ['c']), check('b', ['a']), check('c', ['b', 'x'])],
      /cycle: a → c → b → a/,
    ],
    ['a cycle through a use', [check('a', ['b']), check('b', [], undefined, { uses: ['a'] })], /cycle/],
  ])('%s', (_label, table, message) => {
    expect(() => defineChecks(table)).toThrow(QualificationError);
    expect(() => defineChecks(table)).toThrowCode('paperclip_qualification_check_table_invalid');
    expect(() => defineChecks(table)).toThrow(message);
  });
});

describe('runChecks', () => {
  it('runs each check after what it needs or uses, otherwise in table order', async () => {
    const { log } = await run([
      check('c', ['b']),
      check('d'),
      check('b', ['a']),
      check('e', [], undefined, { uses: ['f'] }),
      check('a'),
      check('f'),
    ]);
    expect(log).toEqual(['a', 'b', 'c', 'd', 'f', 'e']);
  });

  it('skips, without running them, the checks after a failed need: "needs X" names the first check that gave nothing', async () => {
    const { log, status, detail } = await run([
      check('a', [], failed('a'), { unavailable: 'no a value' }),
      check('b', ['a']),
      check('c', ['b']),
      check('d', ['c', 'e']),
      check('e'),
    ]);
    expect(log).toEqual(['a', 'e']);
    expect(status).toEqual({ a: 'fail', b: 'skipped', c: 'skipped', d: 'skipped', e: 'pass' });
    expect(detail.b).toBe('needs a: no a value');
    expect(detail.c).toBe('needs a: no a value');
    expect(detail.d).toBe('needs a: no a value');
  });

  it('skips the checks after a need that passed without a value, and runs those after one that failed with a value', async () => {
    const { log, detail } = await run([
      check('a', [], { status: 'pass', detail: 'a ok' }),
      check('b', ['a']),
      check('c', [], { status: 'fail', detail: 'c failed', issues: [], value: 'c' }),
      check('d', ['c']),
    ]);
    expect(log).toEqual(['a', 'c', 'd']);
    expect(detail.b).toBe('needs a');
  });

  it('names every need that gave nothing, once each', async () => {
    const { detail } = await run([
      check('a', [], failed('a')),
      check('b', ['a']),
      check('c', [], failed('c')),
      check('d', ['a', 'b', 'c']),
    ]);
    expect(detail.d).toBe('needs a; needs c');
  });

  it('records a check that finds a need lacking as "needs X: why", and the checks after it the same', async () => {
    const { detail, status } = await run([
      check('a'),
      check('b', ['a'], { status: 'skipped', unmet: [{ need: 'a', why: 'a has no tarball' }] }),
      check('c', ['b']),
    ]);
    expect(status.b).toBe('skipped');
    expect(detail.b).toBe('needs a: a has no tarball');
    expect(detail.c).toBe('needs a: a has no tarball');
  });

  it('records a check that skips itself for something outside the table as "needs <it>: why", naming no check', async () => {
    const { detail, status, log } = await run([
      check('a'),
      check('b', ['a'], {
        status: 'skipped',
        unmet: [
          { missing: 'a provider', why: 'none runs offline' },
          { need: 'a', why: 'and a is short' },
        ],
      }),
      check('c', ['b']),
      check('d', ['a']),
    ]);
    expect(status.b).toBe('skipped');
    expect(detail.b).toBe('needs a provider: none runs offline; needs a: and a is short');
    expect(status.c).toBe('skipped');
    expect(detail.c).toBe(detail.b);
    expect(log).toEqual(['a', 'b', 'd']);
  });

  it('hands a check the values of its needs and uses, and no other', async () => {
    const seen: unknown[] = [];
    const table: Def[] = [
      check('a'),
      check('u', [], failed('u')),
      {
        id: 'b',
        needs: ['a'],
        uses: ['u'],
        run: (_log, values) => (
          seen.push(values.need('a'), values.found('u')),
          { status: 'pass', detail: 'ok' }
        ),
      },
      {
        id: 'c',
        needs: [],
        run: (_log, values) => (values.need('a'), { status: 'pass', detail: 'ok' }),
      },
      { id: 'd', needs: ['a'], run: () => ({ status: 'skipped', unmet: [{ need: 'u' }] }) },
    ];
    await expect(runChecks(defineChecks(table.slice(0, 3)), [])).resolves.toHaveLength(3);
    expect(seen).toEqual(['a', undefined]);
    await expect(runChecks(defineChecks([...table.slice(0, 2), table[3]!]), [])).rejects.toThrow(
      /c read a, which it does not need/,
    );
    await expect(runChecks(defineChecks([...table.slice(0, 2), table[4]!]), [])).rejects.toThrow(
      /d names u, which it does not need/,
    );
  });
});

describe('on random check graphs', () => {
  type Kind = 'value' | 'pass-nothing' | 'fail-value' | 'fail-nothing' | 'lacking';
  const graphs = fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.record({
      // needs[i] ⊆ {0..i-1}: a DAG; order: a permutation of the table.
      needs: fc.tuple(
        ...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => j))),
      ),
      kinds: fc.array(
        fc.constantFrom<Kind>('value', 'pass-nothing', 'fail-value', 'fail-nothing', 'lacking'),
        { minLength: n, maxLength: n },
      ),
      order: fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
    }),
  );

  const outcomeOf = (kind: Kind, id: Id, needs: readonly Id[]): Outcome<Id, unknown, never> => {
    switch (kind) {
      case 'value':
        return { status: 'pass', detail: 'ok', value: id };
      case 'pass-nothing':
        return { status: 'pass', detail: 'ok' };
      case 'fail-value':
        return { status: 'fail', detail: 'no', issues: [], value: id };
      case 'fail-nothing':
        return { status: 'fail', detail: 'no', issues: [] };
      case 'lacking':
        return needs.length === 0
          ? { status: 'pass', detail: 'ok', value: id }
          : { status: 'skipped', unmet: [{ need: needs[0]!, why: 'lacking' }] };
    }
  };

  it('a check runs exactly when every need gave a value, after them; every other check says which need gave nothing', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async ({ needs, kinds, order }) => {
        const ids = needs.map((_, i) => `c${i}`);
        const needIds = needs.map((list) => list.map((j) => ids[j]!));
        const table = order.map((i) =>
          check(ids[i]!, needIds[i], outcomeOf(kinds[i]!, ids[i]!, needIds[i]!)),
        );
        const { log, status, detail } = await run(table);
        // The model: gave[i] when i ran and returned a value; roots[i], the checks a skip names
        // when something needs i and i gave nothing.
        const ran: boolean[] = [];
        const gave: boolean[] = [];
        const roots: Set<number>[] = [];
        for (let i = 0; i < ids.length; i += 1) {
          const kind = kinds[i]!;
          const lacking = kind === 'lacking' && needs[i]!.length > 0;
          const runs = needs[i]!.every((j) => gave[j] === true);
          ran[i] = runs;
          gave[i] = runs && (kind === 'value' || kind === 'fail-value' || (kind === 'lacking' && !lacking));
          roots[i] = !runs
            ? new Set(needs[i]!.filter((j) => gave[j] !== true).flatMap((j) => [...roots[j]!]))
            : lacking
              ? new Set([needs[i]![0]!])
              : new Set([i]);
        }
        expect(new Set(log)).toEqual(new Set(ids.filter((_, i) => ran[i])));
        for (let i = 0; i < ids.length; i += 1) {
          for (const j of needs[i]!)
            if (ran[i]) expect(log.indexOf(ids[j]!)).toBeLessThan(log.indexOf(ids[i]!));
          if (status[ids[i]!] !== 'skipped') continue;
          expect(!ran[i] || kinds[i] === 'lacking').toBe(true);
          const named = [...detail[ids[i]!]!.matchAll(/needs (c\d+)/g)].map((match) =>
            Number(match[1]!.slice(1)),
          );
          expect(new Set(named)).toEqual(roots[i]);
          expect(named.length).toBe(roots[i]!.size);
        }
      }),
    );
  });

  it('any back edge makes a cycle, refused at definition time', () => {
    fc.assert(
      fc.property(graphs, fc.nat(), ({ needs, order }, pick) => {
        const edges = needs.flatMap((list, i) => list.map((j) => [i, j] as const));
        fc.pre(edges.length > 0);
        const [from, to] = edges[pick % edges.length]!;
        const ids = needs.map((_, i) => `c${i}`);
        const withBack = needs.map((list, i) => (i === to ? [...list, from] : list));
        const table = order.map((i) =>
          check(
            ids[i]!,
            withBack[i]!.map((j) => ids[j]!),
          ),
        );
        expect(() => defineChecks(table)).toThrow(/cycle/);
      }),
    );
  });
});

describe("qualification's table", () => {
  it('has one module per check of QUALIFICATION_CHECK_IDS, each id once, and runs them in the record order', () => {
    const ids = QUALIFICATION_CHECKS.map((definition) => definition.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...QUALIFICATION_CHECK_IDS]);
    expect(QUALIFICATION_PLAN.checks.map((definition) => definition.id)).toEqual([
      ...QUALIFICATION_CHECK_IDS,
    ]);
  });

  it('every need comes earlier in the record order', () => {
    for (const definition of QUALIFICATION_CHECKS) {
      for (const need of [...definition.needs, ...(definition.uses ?? [])]) {
        expect(QUALIFICATION_CHECK_IDS.indexOf(need), `${definition.id} needs ${need}`).toBeLessThan(
          QUALIFICATION_CHECK_IDS.indexOf(definition.id),
        );
      }
    }
  });
});
