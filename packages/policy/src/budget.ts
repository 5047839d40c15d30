/**
 * `budgetStatus`: every hard cap (enforced `block` entry) that applies to a caller, on any
 * model, with what its pool has spent — what `GET /v1/tollgate/budget` answers. A caller sees
 * its own caps and pools only: the entries whose population matches it and whose pool it
 * belongs to. Pure: the gateway adds what live requests hold.
 */
import { calendarDay, toEpochMs, type Instant, type SpendWindow } from './calendar.js';
import { compiled } from './compile.js';
import { isCounterValues } from './counters.js';
import type { CounterValues } from './counters.js';
import { poolKeys, poolNames, type SpendPer } from './keys.js';
import type { Enforcement, Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';
import { boundsOf, scratchFor, used, vectorProblem } from './spend.js';
import type { PoolCounters, SpendCounters } from './spend-types.js';

export interface BudgetInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** As for `decideSpend`: nested counters (with `pools`), or a `counterLayout` vector. */
  counters: SpendCounters | CounterValues;
  pools?: PoolCounters;
  now: Instant;
  /** Overrides the policy's `enforcement` (in shadow nothing is enforced, so no cap applies). */
  enforcement?: Enforcement;
}

export interface BudgetLine {
  ruleId: string;
  per: SpendPer;
  /** The pool's name (the caller's id for `per: user`, its team, BU, …, `org`) and its key. */
  pool: string;
  poolKey: string;
  scope: string;
  /** The models the scope covers. */
  models: readonly string[];
  window: SpendWindow;
  /** The hold key's window part, and the counter window keys summed (see `HardCap`). */
  windowKey: string;
  windowKeys: readonly string[];
  /** The constraint key holds are counted under (`HardCap.key`). */
  capKey: string;
  limitMicros: number;
  usedMicros: number;
  /** When the window rolls over (a rolling window: when its oldest bucket next drops out). */
  resetsAt: number;
  /** `spend_limit:<rule id>`. */
  reason: string;
}

export type BudgetStatus = { ok: true; lines: BudgetLine[] } | { ok: false; reason: string };

/** The enforced hard caps that apply to `principal`, in precedence order, with the spend of their pools. */
export function budgetStatus(input: BudgetInput): BudgetStatus {
  const c = compiled(input.policy, input.registry);
  if ((input.enforcement ?? c.enforcement) === 'shadow') return { ok: true, lines: [] };
  const t = toEpochMs(input.now);
  if (!Number.isFinite(t)) return { ok: false, reason: 'spend_error:invalid_now' };
  const vec = isCounterValues(input.counters) ? input.counters : undefined;
  const counters = vec === undefined ? (input.counters as SpendCounters) : undefined;
  if (vec !== undefined) {
    const problem = vectorProblem(c, vec, t);
    if (problem !== undefined) return { ok: false, reason: problem };
  }
  const p = input.principal;
  const pools = poolKeys(p);
  const overrides = p.bu === undefined ? undefined : c.overrides.get(p.bu);
  const cal = calendarDay(t, c.timezone);
  const s = scratchFor(c);
  const lines: BudgetLine[] = [];
  for (const e of c.spendEntries) {
    const pkey = pools[e.perIdx] as string | null;
    if (e.shadow || pkey === null || !e.pop.matches(p)) continue;
    const o = overrides?.get(e.entryKey);
    const actions = o === undefined ? e.actions : o.actions;
    if (!actions.some((a) => a.type === 'block')) continue;
    const b = boundsOf(cal, t, e);
    const spent = used(c, s, e, b, counters, input.pools, vec);
    if (spent < 0) return { ok: false, reason: 'spend_error:invalid_counter' };
    lines.push({
      ruleId: e.ruleId,
      per: e.per,
      pool: poolNames(p)[e.perIdx] as string,
      poolKey: pkey,
      scope: e.scope.name,
      models: e.scope.ids,
      window: e.window,
      windowKey: b.key,
      windowKeys: b.counterKeys,
      capKey: `${e.capPrefix}${pkey}:${b.key}`,
      limitMicros: o === undefined ? e.thresholdMicros : o.thresholdMicros,
      usedMicros: spent,
      resetsAt: b.end,
      reason: e.limitReason,
    });
  }
  return { ok: true, lines };
}
