/**
 * The fast counters input. A policy says which counters its decisions can read — for each
 * (per, window) pair its spend entries use, the window's keys (one for a calendar window, the
 * buckets of a rolling one) × the models their scopes cover — as a `CounterLayout`. The
 * gateway reads exactly those counters (one store round trip, in layout order, each slot's
 * `per` naming whose counter: the caller's own or one of its pools') and passes the numbers
 * back as `{ layout, values }`: the decision then sums array slots, with no key lookups.
 */
import { SPEND_WINDOWS, boundsAt, calendarDay, isRollingWindow, rollingBounds, toEpochMs, type Instant, type SpendWindow } from './calendar.js';
import { compiled, type CompiledPolicy } from './compile.js';
import type { SpendPer } from './keys.js';
import type { Policy } from './policy-types.js';
import type { RegistryView } from './registry-view.js';

/** One counter a decision can read: c(pool `per` of the caller, model, window key). */
export interface CounterSlot {
  readonly per: SpendPer;
  /** Index of `per` in `SPEND_PERS` (what `poolKeys(principal)` is indexed by). */
  readonly perIdx: number;
  readonly windowKey: string;
  readonly model: string;
}

/** The counters of one (per, window) pair: `windowKeys × models`, starting at `offset`. */
export interface CounterGroup {
  readonly per: SpendPer;
  readonly window: SpendWindow;
  readonly windowKeys: readonly string[];
  readonly models: readonly string[];
  readonly offset: number;
}

export interface CounterLayout {
  readonly timezone: string;
  /** The (per, window) pairs spend entries use, laid out one after another. */
  readonly groups: readonly CounterGroup[];
  /** How many counters: the sum over groups of window keys × models. */
  readonly size: number;
  /** Every counter in slot order: the counters to read. */
  readonly slots: readonly CounterSlot[];
  /** The layout is for decisions at instants in `[validFrom, validTo)` (a calendar day, or an hour with rolling windows). */
  readonly validFrom: number;
  readonly validTo: number;
}

/** Counter values in layout order (micro-USD; missing or invalid values fail the decision closed). */
export interface CounterValues {
  readonly layout: CounterLayout;
  readonly values: ArrayLike<number>;
}

const owners = new WeakMap<CounterLayout, CompiledPolicy>();
const memo = new WeakMap<CompiledPolicy, CounterLayout>();
const HOUR_MS = 3_600_000;

/** The counters spend decisions on this (policy, registry) can read at `now` (memoised per day, or per hour with rolling windows). */
export function counterLayout(input: { policy: Policy; registry: RegistryView; now: Instant }): CounterLayout {
  const c = compiled(input.policy, input.registry);
  const t = toEpochMs(input.now);
  const hit = memo.get(c);
  if (hit !== undefined && t >= hit.validFrom && t < hit.validTo) return hit;
  const cal = calendarDay(t, c.timezone);
  let validFrom = cal.start;
  let validTo = cal.end;
  if (c.rolling) {
    const hour = Math.floor(t / HOUR_MS) * HOUR_MS;
    validFrom = Math.max(validFrom, hour);
    validTo = Math.min(validTo, hour + HOUR_MS);
  }
  const groups: CounterGroup[] = [];
  const slots: CounterSlot[] = [];
  for (const g of c.groups) {
    const window = SPEND_WINDOWS[g.windowIdx] as SpendWindow;
    const windowKeys = isRollingWindow(window) ? rollingBounds(window, t).counterKeys : [boundsAt(cal, g.windowIdx).key];
    groups.push(Object.freeze({ per: g.per, window, windowKeys: Object.freeze([...windowKeys]), models: g.ids, offset: g.offset }));
    for (const windowKey of windowKeys) for (const model of g.ids) slots.push(Object.freeze({ per: g.per, perIdx: g.perIdx, windowKey, model }));
  }
  const layout: CounterLayout = Object.freeze({
    timezone: c.timezone,
    groups: Object.freeze(groups),
    size: slots.length,
    slots: Object.freeze(slots),
    validFrom,
    validTo,
  });
  owners.set(layout, c);
  memo.set(c, layout);
  return layout;
}

export function isCounterValues(x: unknown): x is CounterValues {
  const l = (x as { layout?: unknown }).layout;
  return typeof l === 'object' && l !== null && owners.has(l as CounterLayout);
}

/** The compiled policy a layout belongs to (undefined: not made by `counterLayout`). */
export function layoutOwner(layout: CounterLayout): CompiledPolicy | undefined {
  return owners.get(layout);
}
