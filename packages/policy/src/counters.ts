/**
 * The fast counters input. A policy says which counters its decisions can read — the windows
 * its spend rules use × the models their scopes cover — as a `CounterLayout`. The gateway
 * reads exactly those counters (one store round trip, in layout order) and passes the numbers
 * back as `{ layout, values }`: the decision then sums array slots, with no key lookups.
 */
import { SPEND_WINDOWS, boundsAt, calendarDay, toEpochMs, type Instant, type SpendWindow } from './calendar.js';
import { compiled, type CompiledPolicy } from './compile.js';
import type { Policy } from './policy-types.js';
import type { RegistryView } from './registry-view.js';

export interface CounterLayout {
  readonly timezone: string;
  /** Windows the policy's spend rules use. */
  readonly windows: readonly SpendWindow[];
  /** Each window's key at the `now` the layout was made for. */
  readonly windowKeys: readonly string[];
  /** Models some spend scope covers, in registry order. */
  readonly models: readonly string[];
  /** `windows.length × models.length`; the slot of (windows[w], models[m]) is `w * models.length + m`. */
  readonly size: number;
  /** Every (window key, model) in slot order: the counters to read. */
  readonly slots: readonly { readonly windowKey: string; readonly model: string }[];
}

/** Counter values in layout order (micro-USD; missing or invalid values fail the decision closed). */
export interface CounterValues {
  readonly layout: CounterLayout;
  readonly values: ArrayLike<number>;
}

const owners = new WeakMap<CounterLayout, CompiledPolicy>();
const byDay = new WeakMap<CompiledPolicy, { start: number; end: number; layout: CounterLayout }>();

/** The counters spend decisions on this (policy, registry) can read at `now` (memoised per day). */
export function counterLayout(input: { policy: Policy; registry: RegistryView; now: Instant }): CounterLayout {
  const c = compiled(input.policy, input.registry);
  const t = toEpochMs(input.now);
  const cal = calendarDay(t, c.timezone);
  const hit = byDay.get(c);
  if (hit !== undefined && t >= hit.start && t < hit.end) return hit.layout;
  const windowKeys = c.windows.map((w) => boundsAt(cal, SPEND_WINDOWS.indexOf(w)).key);
  const slots = windowKeys.flatMap((windowKey) => c.covered.map((model) => ({ windowKey, model })));
  const layout: CounterLayout = Object.freeze({
    timezone: c.timezone, windows: c.windows, windowKeys: Object.freeze(windowKeys), models: c.covered,
    size: slots.length, slots: Object.freeze(slots),
  });
  owners.set(layout, c);
  byDay.set(c, { start: cal.start, end: cal.end, layout });
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
