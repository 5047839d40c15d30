import {
  ROLLING,
  bucketCharges,
  keySegment,
  poolKeys,
  windowBounds,
  windowKeys,
  type CounterLayout,
  type HardCap,
  type Principal,
  type RollingWindow,
} from '@tollgate/policy';

/**
 * The tenant whose hash tag a principal's store keys carry (`GatewayOptions.tenantOf`). With
 * one, every key of the principal starts with `{<tenant>}:`, so a Redis store created with
 * `hashTag: hashTagFromKey()` keeps each tenant's keys in one Cluster slot (one atomic script
 * per request, pooled caps of the same tenant included) and spreads tenants over slots. The
 * keys of a principal's pools (team, BU, application, workflow, platform, org) carry the same
 * tag: a tenant must hold whole pools.
 */
export type TenantOf = (principal: Principal) => string | null | undefined;

/**
 * The prefix of every store key of `principal`: `{<tenant>}:` (escaped, so a tenant name can
 * never close the tag early), or '' without a tenant.
 */
export function keyTag(principal: Principal, tenantOf: TenantOf | undefined): string {
  if (tenantOf === undefined) return '';
  const tenant = tenantOf(principal);
  return typeof tenant === 'string' && tenant !== '' ? `{${keySegment(tenant)}}:` : '';
}

/**
 * The counter c(principal, model, window): committed micro-USD. `principal` is the principal
 * key (`principalKey(p)`: kind, a JWT principal's issuer, id) or a pool's key (`poolKey`), so
 * principals of different kinds or issuers, and pools, never share a counter:
 * `c:user:alice:2026-11:claude-sonnet`, `c:bu:payments:2026-11:claude-sonnet`.
 */
export function counterKey(principal: string, windowKey: string, model: string): string {
  return `c:${principal}:${windowKey}:${model}`;
}

/** Calendar counters outlive the longest window (a year) with slack. */
export const COUNTER_TTL_MS = 400 * 24 * 3600 * 1000;

/**
 * Every counter a request's cost is charged to: c(p, model, w) for the principal itself and
 * every pool it belongs to (team, BU, application, workflow, platform, org), for every calendar
 * window and the rolling-window buckets (hour and six hours, each with its own TTL), under
 * `tag`. Charged whatever the policy says now, so a pooled or rolling rule added later already
 * sees the spend.
 */
export function chargeKeys(tag: string, principal: Principal, model: string, now: number, timezone: string): Array<{ counter: string; ttlMs: number }> {
  return chargeKeyList(tag, principal, model, now, timezone).slice();
}

/** `chargeKeys` as the shared list itself (frozen entries): for a caller that only reads it. */
export function chargeKeyList(
  tag: string,
  principal: Principal,
  model: string,
  now: number,
  timezone: string,
): ReadonlyArray<{ readonly counter: string; readonly ttlMs: number }> {
  // Every calendar window's key changes only when the local day does (the daily key names it),
  // every bucket's when its own bucket does: the same keys as the last call for this principal,
  // model, tag and time zone while `now` stays in the local day and in every current bucket.
  let memo = chargeMemo.get(principal);
  if (memo === undefined) chargeMemo.set(principal, (memo = []));
  for (const hit of memo) {
    if (hit.tag === tag && hit.model === model && hit.timezone === timezone && now >= hit.validFrom && now < hit.validTo) return hit.charges;
  }
  const day = windowBounds('daily', now, timezone);
  let validFrom = day.start;
  let validTo = day.end;
  for (const w of ROLLING_WINDOWS) {
    const bucketMs = ROLLING[w].bucketMs;
    const start = Math.floor(now / bucketMs) * bucketMs;
    validFrom = Math.max(validFrom, start);
    validTo = Math.min(validTo, start + bucketMs);
  }
  const windows = windowKeys(now, timezone);
  const buckets = bucketCharges(now);
  const out: Array<{ counter: string; ttlMs: number }> = [];
  for (const pool of poolKeys(principal)) {
    if (pool === null) continue;
    for (const wk of Object.values(windows)) out.push(Object.freeze({ counter: tag + counterKey(pool, wk, model), ttlMs: COUNTER_TTL_MS }));
    for (const b of buckets) out.push(Object.freeze({ counter: tag + counterKey(pool, b.key, model), ttlMs: b.ttlMs }));
  }
  const made: ChargeMemoEntry = { tag, model, timezone, validFrom, validTo, charges: out };
  // One entry per model, tag and time zone a principal is charged under (the one that moved on
  // is replaced); one charged under many is not kept for all of them.
  const stale = memo.findIndex((e) => e.tag === tag && e.model === model && e.timezone === timezone);
  if (stale >= 0) memo[stale] = made;
  else {
    if (memo.length >= 64) memo.length = 0;
    memo.push(made);
  }
  return out;
}

const ROLLING_WINDOWS = Object.keys(ROLLING) as RollingWindow[];

/** The last charge keys per principal, model, tag and time zone (a principal object lives as long as its key or token cache entry). */
interface ChargeMemoEntry {
  tag: string;
  model: string;
  timezone: string;
  /** The keys are the same for instants in `[validFrom, validTo)`: one local day and bucket of every rolling window. */
  validFrom: number;
  validTo: number;
  charges: ReadonlyArray<{ counter: string; ttlMs: number }>;
}
const chargeMemo = new WeakMap<Principal, ChargeMemoEntry[]>();

/**
 * The store keys of a counter layout for one caller: `keys` to read (the counters of the
 * caller and of the pools it belongs to), and for each layout slot its position in `keys`, or
 * -1 for a pool the caller is not in (that slot counts 0; no entry of that pool covers it).
 */
export interface LayoutKeys {
  keys: string[];
  positions: Int32Array;
}

const layoutMemo = new WeakMap<CounterLayout, WeakMap<Principal, { tag: string; keys: LayoutKeys }>>();

export function layoutKeys(layout: CounterLayout, principal: Principal, tag: string): LayoutKeys {
  let byPrincipal = layoutMemo.get(layout);
  if (byPrincipal === undefined) layoutMemo.set(layout, (byPrincipal = new WeakMap()));
  const hit = byPrincipal.get(principal);
  if (hit !== undefined && hit.tag === tag) return hit.keys;
  const pools = poolKeys(principal);
  const keys: string[] = [];
  const positions = new Int32Array(layout.slots.length);
  layout.slots.forEach((slot, i) => {
    const pool = pools[slot.perIdx];
    if (pool === null || pool === undefined) positions[i] = -1;
    else {
      positions[i] = keys.length;
      keys.push(tag + counterKey(pool, slot.windowKey, slot.model));
    }
  });
  const made = { keys, positions };
  byPrincipal.set(principal, { tag, keys: made });
  return made;
}

/** Counter values in layout order from what the store read (`values[key]`); slots of no pool count 0. */
export function layoutValues(lk: LayoutKeys, values: Readonly<Record<string, number>>): Float64Array {
  const out = new Float64Array(lk.positions.length);
  for (let i = 0; i < out.length; i++) {
    const at = lk.positions[i] as number;
    out[i] = at < 0 ? 0 : (values[lk.keys[at] as string] ?? 0);
  }
  return out;
}

/** The counters a hard cap sums: its pool's c(pool, m, k) for every model and window key of its scope. */
export function capCounters(cap: HardCap, tag: string): readonly string[] {
  // A cap's window keys and models are the policy's own arrays (the same ones until the window
  // moves on): its counters are made once per pool and tag for them.
  let byModels = capMemo.get(cap.windowKeys);
  if (byModels === undefined) capMemo.set(cap.windowKeys, (byModels = new WeakMap()));
  let byPool = byModels.get(cap.models);
  if (byPool === undefined) byModels.set(cap.models, (byPool = new Map<string, readonly string[]>()));
  const memoKey = `${tag}\n${cap.principalKey}`;
  const hit = byPool.get(memoKey);
  if (hit !== undefined) return hit;
  const out: string[] = [];
  for (const wk of cap.windowKeys) for (const m of cap.models) out.push(tag + counterKey(cap.principalKey, wk, m));
  Object.freeze(out);
  // Bounded: many pools in one window are made again rather than all kept.
  if (byPool.size >= 4096) byPool.clear();
  byPool.set(memoKey, out);
  return out;
}

const capMemo = new WeakMap<readonly string[], WeakMap<readonly string[], Map<string, readonly string[]>>>();
