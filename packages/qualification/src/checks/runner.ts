// The generic check runner: a table of checks `{id, needs, run}` is validated once (unique ids,
// every need known, no cycle) into a plan in dependency order; running the plan runs each check
// whose needs all gave a value, and records every other check as skipped "needs X" (a check may
// also skip itself for something outside the table, "needs a provider: ..."). Nothing here
// knows what a check does; qualification's checks live beside this file, one module each.
import { QualificationError } from '../errors.js';

/** What a check that ran reports: its entry in the record, and what later checks may use. */
export interface Ran<V, F> {
  readonly status: 'pass' | 'fail';
  readonly detail: string;
  readonly issues?: readonly unknown[];
  /** What later checks consume (absent: this check gives them nothing, and they are skipped). */
  readonly value?: V;
  /** What this check contributes to the record, whatever its status. */
  readonly facts?: F;
}

/** A need whose value the check found lacking, with why (rendered "needs <need>: <why>"). */
export interface Unmet<Id extends string> {
  readonly need: Id;
  readonly why?: string;
}

/**
 * Something from outside the release and the table that a check needs and is not there (a live
 * provider with credentials, ...): rendered "needs <missing>: <why>". It names no check.
 */
export interface Missing {
  readonly missing: string;
  readonly why?: string;
}

/** A check that ran but found a need's value lacking what it needs, or something outside missing. */
export interface Skip<Id extends string, F> {
  readonly status: 'skipped';
  readonly unmet: readonly (Unmet<Id> | Missing)[];
  readonly facts?: F;
}

export type Outcome<Id extends string, V, F> = Ran<V, F> | Skip<Id, F>;

/** The values of the checks that ran before, as the runner hands them to `run`. */
export interface Values<Id extends string> {
  /** The value of a check this one needs (always there: the runner skips the check otherwise). */
  need(id: Id): unknown;
  /** The value of a check this one uses if it is there (one of its `uses`), or undefined. */
  found(id: Id): unknown;
}

export interface CheckDefinition<Id extends string, C, F> {
  readonly id: Id;
  /** Checks that must give a value first; when one gives none, this check is skipped "needs X". */
  readonly needs: readonly Id[];
  /** Checks whose value this one reads when there is one (they run first; it runs without them). */
  readonly uses?: readonly Id[];
  /** Why a check that needs this one is skipped when it ran and gave no value. */
  readonly unavailable?: string;
  run(context: C, values: Values<Id>): Outcome<Id, unknown, F> | Promise<Outcome<Id, unknown, F>>;
}

/** A table of checks, validated and sorted: the only thing runChecks accepts. */
export interface CheckPlan<Id extends string, C, F> {
  /** In dependency order (the table's order wherever the needs allow it). */
  readonly checks: readonly CheckDefinition<Id, C, F>[];
}

/** One check's result: its record entry (detail is the skip reason when skipped) and its facts. */
export interface CheckResult<Id extends string, F> {
  readonly id: Id;
  readonly status: 'pass' | 'fail' | 'skipped';
  readonly detail: string;
  readonly issues?: readonly unknown[];
  readonly facts?: F;
}

/** Thrown when a table of checks is not well formed; the message names the check and the rule. */
function tableError(message: string): QualificationError {
  return new QualificationError('paperclip_qualification_check_table_invalid', message);
}

/**
 * Validates a table of checks: every id unique, every need and use a check of the table (not the
 * check itself), no cycle. Returns the plan in dependency order, stable in the table's order.
 */
export function defineChecks<Id extends string, C, F>(
  table: readonly CheckDefinition<Id, C, F>[],
): CheckPlan<Id, C, F> {
  const byId = new Map<Id, CheckDefinition<Id, C, F>>();
  for (const check of table) {
    if (byId.has(check.id)) throw tableError(`check ${check.id} is defined twice`);
    byId.set(check.id, check);
  }
  const before = (check: CheckDefinition<Id, C, F>): readonly Id[] => [...check.needs, ...(check.uses ?? [])];
  for (const check of table) {
    for (const need of before(check)) {
      if (need === check.id) throw tableError(`check ${check.id} needs itself`);
      if (!byId.has(need)) throw tableError(`check ${check.id} needs ${need}, which is not a check`);
    }
  }
  // Depth-first, visiting in table order: each check comes after everything it needs or uses.
  const ordered: CheckDefinition<Id, C, F>[] = [];
  const state = new Map<Id, 'visiting' | 'done'>();
  const visit = (check: CheckDefinition<Id, C, F>, path: readonly Id[]): void => {
    const seen = state.get(check.id);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(check.id)), check.id];
      throw tableError(`checks form a cycle: ${cycle.join(' → ')}`);
    }
    state.set(check.id, 'visiting');
    for (const need of before(check)) visit(known(byId, need), [...path, check.id]);
    state.set(check.id, 'done');
    ordered.push(check);
  };
  for (const check of table) visit(check, []);
  return { checks: ordered };
}

/**
 * Runs a plan. A check whose need gave no value is skipped without running: its reason is the
 * need's own skip reason when the need was skipped (so a skip names the first check that gave
 * nothing), "needs <need>[: <unavailable>]" when the need ran and gave nothing. A check that
 * returns Skip is recorded with "needs <need>[: <why>]" for each unmet need it names (each must be
 * one of its needs or uses). Distinct reasons are joined with "; ".
 */
/** What runChecks reports as it goes: a check about to run, and each check decided (run or skipped). */
export interface CheckEvents<Id extends string, F> {
  readonly onStart?: (id: Id, index: number, total: number) => void;
  readonly onDone?: (result: CheckResult<Id, F>, index: number, total: number) => void;
}

export async function runChecks<Id extends string, C, F>(
  plan: CheckPlan<Id, C, F>,
  context: C,
  events: CheckEvents<Id, F> = {},
): Promise<CheckResult<Id, F>[]> {
  const results = new Map<Id, CheckResult<Id, F>>();
  const values = new Map<Id, unknown>();
  // A skipped check's reasons, one per need that gave nothing (its detail joins them).
  const skipReasons = new Map<Id, readonly string[]>();
  const byId = new Map(plan.checks.map((check) => [check.id, check]));
  const total = plan.checks.length;
  const decide = (result: CheckResult<Id, F>): void => {
    results.set(result.id, result);
    events.onDone?.(result, results.size, total);
  };
  for (const check of plan.checks) {
    const reasons: string[] = [];
    for (const need of check.needs) {
      if (values.has(need)) continue;
      reasons.push(...(skipReasons.get(need) ?? [needsReason(need, known(byId, need).unavailable)]));
    }
    if (reasons.length > 0) {
      skipReasons.set(check.id, distinct(reasons));
      decide({ id: check.id, status: 'skipped', detail: distinct(reasons).join('; ') });
      continue;
    }
    const allowed = new Set<Id>([...check.needs, ...(check.uses ?? [])]);
    events.onStart?.(check.id, results.size + 1, total);
    const outcome = await check.run(context, {
      need: (id) => {
        if (!check.needs.includes(id) || !values.has(id)) {
          throw new Error(`internal: check ${check.id} read ${id}, which it does not need`);
        }
        return values.get(id);
      },
      found: (id) => {
        if (!allowed.has(id))
          throw new Error(`internal: check ${check.id} read ${id}, which it does not use`);
        return values.get(id);
      },
    });
    const facts = outcome.facts === undefined ? {} : { facts: outcome.facts };
    if (outcome.status === 'skipped') {
      if (outcome.unmet.length === 0) throw new Error(`internal: check ${check.id} skipped without a reason`);
      for (const unmet of outcome.unmet) {
        if ('need' in unmet && !allowed.has(unmet.need)) {
          throw new Error(`internal: check ${check.id} names ${unmet.need}, which it does not need`);
        }
      }
      const unmet = distinct(
        outcome.unmet.map((item) => needsReason('need' in item ? item.need : item.missing, item.why)),
      );
      skipReasons.set(check.id, unmet);
      decide({ id: check.id, status: 'skipped', detail: unmet.join('; '), ...facts });
      continue;
    }
    if (outcome.value !== undefined) values.set(check.id, outcome.value);
    decide({
      id: check.id,
      status: outcome.status,
      detail: outcome.detail,
      ...(outcome.issues === undefined ? {} : { issues: outcome.issues }),
      ...facts,
    });
  }
  return plan.checks.map((check) => known(results, check.id));
}

/** The entry of a check the table is known to hold (defineChecks made sure of it). */
function known<Id extends string, T>(map: ReadonlyMap<Id, T>, id: Id): T {
  const found = map.get(id);
  if (found === undefined) throw new Error(`internal: no check ${id}`);
  return found;
}

function needsReason(need: string, why: string | undefined): string {
  return why === undefined ? `needs ${need}` : `needs ${need}: ${why}`;
}

function distinct(reasons: readonly string[]): string[] {
  return [...new Set(reasons)];
}
