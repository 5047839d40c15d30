/**
 * `decideSpend`: every budget is a view over counters c(principal, model, window) summed over
 * the scope's models, so a rule added mid-window already sees the window's spend. Admission
 * is decided here; the atomic arithmetic (counted + reserved + cost ≤ limit) is the store's,
 * from `hardCaps`.
 */
import { boundsAt, calendarDay, rollingBounds, toEpochMs, type CalendarDay, type RollingWindow, type WindowBounds } from './calendar.js';
import { compiled, type CompiledGroup, type CompiledPolicy, type CompiledSpendEntry } from './compile.js';
import { isCounterValues, layoutOwner, type CounterValues } from './counters.js';
import { poolKeys, poolNames } from './keys.js';
import type { SpendAction } from './policy-types.js';
import type { HardCap, PoolCounters, SpendCounters, SpendDecision, SpendInput, Utilization } from './spend-types.js';

const HOUR_MS = 3_600_000;

/** Reused buffers for scope sums, one set per compiled policy; stamps avoid clearing. */
interface Scratch {
  gen: number;
  /** Per distinct population: the generation it was evaluated in, and the result. */
  popStamp: Uint32Array;
  popMatch: Uint8Array;
  /** Nested counters: per group, the per-model sums over its window keys. */
  groupStamp: Uint32Array;
  perModel: Float64Array;
  /** Per (group, scope): the scope's sum. */
  sumStamp: Uint32Array;
  sums: Float64Array;
}

const scratches = new WeakMap<CompiledPolicy, Scratch>();

export function scratchFor(c: CompiledPolicy): Scratch {
  let s = scratches.get(c);
  if (s === undefined) {
    const g = c.groups.length;
    s = {
      gen: 0,
      popStamp: new Uint32Array(c.populations),
      popMatch: new Uint8Array(c.populations),
      groupStamp: new Uint32Array(g),
      perModel: new Float64Array(g * c.modelIds.length),
      sumStamp: new Uint32Array(g * c.scopes.length),
      sums: new Float64Array(g * c.scopes.length),
    };
    scratches.set(c, s);
  }
  if (++s.gen === 0xffffffff) {
    s.gen = 1;
    s.groupStamp.fill(0);
    s.sumStamp.fill(0);
    s.popStamp.fill(0);
  }
  return s;
}

/** The entry's window at this decision's instant (calendar windows from the day snapshot, rolling ones memoised per bucket). */
export function boundsOf(cal: CalendarDay, t: number, e: CompiledSpendEntry): WindowBounds {
  return e.rolling ? rollingBounds(e.window as RollingWindow, t) : boundsAt(cal, e.windowIdx);
}

/** Fills a group's per-model sums over its window keys; false when a counter is not a usable amount. */
function fillGroup(c: CompiledPolicy, s: Scratch, gi: number, b: WindowBounds, counters: SpendCounters | undefined): boolean {
  const n = c.modelIds.length;
  const base = gi * n;
  for (let i = 0; i < n; i++) s.perModel[base + i] = 0;
  s.groupStamp[gi] = s.gen;
  if (counters === undefined) return true;
  const keys = b.counterKeys;
  for (let k = 0; k < keys.length; k++) {
    const byModel = counters[keys[k] as string];
    if (byModel === undefined) continue;
    for (const id in byModel) {
      const m = c.modelIndex.get(id);
      if (m === undefined) continue;
      const v = byModel[id];
      if (typeof v !== 'number' || !(v >= 0) || v === Infinity) return false;
      s.perModel[base + m] = (s.perModel[base + m] as number) + v;
    }
  }
  return true;
}

/** Where nested counters of pool `per` come from. */
function nestedSource(e: CompiledSpendEntry, counters: SpendCounters, pools: PoolCounters | undefined): SpendCounters | undefined {
  return e.per === 'user' ? counters : pools?.[e.per];
}

/** Spend of the entry's scope in its current window (of its pool), or -1 for an unusable counter. */
export function used(
  c: CompiledPolicy,
  s: Scratch,
  e: CompiledSpendEntry,
  b: WindowBounds,
  counters: SpendCounters | undefined,
  pools: PoolCounters | undefined,
  vec: CounterValues | undefined,
): number {
  const slot = e.groupIdx * c.scopes.length + e.scopeIdx;
  if (s.sumStamp[slot] === s.gen) return s.sums[slot] as number;
  let total = 0;
  const g = c.groups[e.groupIdx] as CompiledGroup;
  if (vec !== undefined) {
    const values = vec.values;
    const n = g.ids.length;
    const slots = e.groupSlots;
    for (let k = 0, base = g.offset; k < g.windowKeys; k++, base += n) {
      for (let i = 0; i < slots.length; i++) {
        const v = values[base + (slots[i] as number)] as number;
        if (!(v >= 0) || v === Infinity) return -1;
        total += v;
      }
    }
  } else {
    if (s.groupStamp[e.groupIdx] !== s.gen && !fillGroup(c, s, e.groupIdx, b, nestedSource(e, counters as SpendCounters, pools))) return -1;
    const base = e.groupIdx * c.modelIds.length;
    const models = e.scope.models;
    for (let i = 0; i < models.length; i++) total += s.perModel[base + (models[i] as number)] as number;
  }
  s.sums[slot] = total;
  s.sumStamp[slot] = s.gen;
  return total;
}

/** A counter vector must come from `counterLayout` for this policy, made for this instant. */
export function vectorProblem(c: CompiledPolicy, vec: CounterValues, t: number): string | undefined {
  const layout = vec.layout;
  if (layoutOwner(layout) !== c) return 'spend_error:counter_layout';
  if (vec.values.length < layout.size) return 'spend_error:invalid_counter';
  if (!(t >= layout.validFrom && t < layout.validTo)) return 'spend_error:stale_counters';
  return undefined;
}

function emptyDecision(enforced: boolean): SpendDecision {
  return {
    allowed: true,
    enforced,
    utilization: [],
    notifications: [],
    messages: [],
    pauses: [],
    latches: [],
    hardCaps: [],
    shadowCaps: [],
    wouldBlock: [],
    reasons: [],
    noPromote: false,
  };
}

function failClosed(d: SpendDecision, reason: string): SpendDecision {
  return { ...emptyDecision(d.enforced), allowed: false, reasons: [reason] };
}

/**
 * Decide whether `principal` may spend on `model` now. Entries are evaluated in precedence
 * order (rule weight, higher first; then file order); all that match apply. An entry covers a
 * caller its population matches and that belongs to the entry's pool (`per`): it compares the
 * pool's spend — the caller's own for `per: user` — with its threshold. A BU override for the
 * principal's BU replaces the threshold (and actions) of the platform entry it names. Shadow
 * mode (policy, input or rule) computes everything and blocks nothing. An unknown model or an
 * unusable counter fails closed, in every mode.
 */
export function decideSpend(input: SpendInput): SpendDecision {
  const c = compiled(input.policy, input.registry);
  const shadowAll = (input.enforcement ?? c.enforcement) === 'shadow';
  const d = emptyDecision(!shadowAll);
  const mi = c.modelIndex.get(input.model);
  if (mi === undefined) return failClosed(d, 'model_not_found');
  const t = toEpochMs(input.now);
  if (!Number.isFinite(t)) return failClosed(d, 'spend_error:invalid_now');
  const entries = c.spendByModel[mi] as readonly CompiledSpendEntry[];
  if (entries.length === 0) return d;

  const p = input.principal;
  const pid = p.id;
  const pools = poolKeys(p);
  const names = poolNames(p);
  const overrides = p.bu === undefined ? undefined : c.overrides.get(p.bu);
  const markers = input.markers;
  const cost = input.costMicros;
  const cal = calendarDay(t, c.timezone);
  const vec = isCounterValues(input.counters) ? input.counters : undefined;
  const counters = vec === undefined ? (input.counters as SpendCounters) : undefined;
  if (vec !== undefined) {
    const problem = vectorProblem(c, vec, t);
    if (problem !== undefined) return failClosed(d, problem);
  }
  const s = scratchFor(c);
  const st: BlockState = { d, retryAt: 0 };

  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as CompiledSpendEntry;
    const pkey = pools[e.perIdx] as string | null;
    if (pkey === null) continue; // not in the entry's pool: not covered
    if (!e.pop.everyone) {
      if (s.popStamp[e.popIdx] !== s.gen) {
        s.popStamp[e.popIdx] = s.gen;
        s.popMatch[e.popIdx] = e.pop.matches(p) ? 1 : 0;
      }
      if (s.popMatch[e.popIdx] === 0) continue;
    }
    const o = overrides?.get(e.entryKey);
    const limit = o === undefined ? e.thresholdMicros : o.thresholdMicros;
    const actions = o === undefined ? e.actions : o.actions;
    const b = boundsOf(cal, t, e);
    const spent = used(c, s, e, b, counters, input.pools, vec);
    if (spent < 0) return failClosed(d, 'spend_error:invalid_counter');
    const crossed = spent >= limit;
    const shadow = shadowAll || e.shadow;
    const pool = names[e.perIdx] as string;

    for (let k = 0; k < actions.length; k++) {
      const a = actions[k] as SpendAction;
      switch (a.type) {
        case 'block': {
          const cap: HardCap = {
            key: `${e.capPrefix}${pkey}:${b.key}`,
            ruleId: e.ruleId,
            principalId: pid,
            principalKey: pkey,
            per: e.per,
            pool,
            models: e.scope.ids,
            scope: e.scope.name,
            window: e.window,
            windowKey: b.key,
            windowKeys: b.counterKeys,
            windowEndsAt: b.end,
            limitMicros: limit,
            usedMicros: spent,
            reason: e.limitReason,
          };
          if (a.message !== undefined) cap.message = a.message;
          (shadow ? d.shadowCaps : d.hardCaps).push(cap);
          d.utilization.push(utilization(e, b, limit, spent, pool, pkey, 'block', !shadow, a.message));
          if (crossed || (cost !== undefined && spent + cost > limit)) {
            block(st, e, b, limit, spent, pool, shadow, 'spend_limit', b.end);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'pause': {
          // Per entry: each entry of a rule that pauses (another scope, a higher threshold) acts once per window.
          const key = `${shadow ? 'shadow:' : ''}pause:${e.markerEntry}:${pkey}:${b.key}`;
          const until = markers?.[key];
          d.utilization.push(utilization(e, b, limit, spent, pool, pkey, 'pause', !shadow, a.message));
          let pausedUntil = 0;
          if (until !== undefined)
            pausedUntil = until > t ? until : 0; // served once this window
          else if (crossed) {
            pausedUntil = Math.min(t + a.hours * HOUR_MS, b.end);
            if (!d.pauses.some((x) => x.key === key)) d.pauses.push({ key, ruleId: e.ruleId, until: pausedUntil, expiresAt: b.end });
          }
          if (pausedUntil > 0) {
            block(st, e, b, limit, spent, pool, shadow, 'paused', pausedUntil);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'notify': {
          if (!crossed) break;
          const key = `${shadow ? 'shadow:' : ''}notify:${e.markerEntry}:${pkey}:${b.key}`;
          if (markers?.[key] !== undefined) break;
          d.notifications.push({
            key,
            ruleId: e.ruleId,
            to: a.to,
            principalId: pid,
            per: e.per,
            pool,
            poolKey: pkey,
            scope: e.scope.name,
            window: e.window,
            windowKey: b.key,
            thresholdMicros: limit,
            usedMicros: spent,
            expiresAt: b.end,
            shadow,
          });
          break;
        }
        case 'message':
          if (crossed && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.text });
          break;
        case 'no_promote':
          if (crossed && !shadow) d.noPromote = true;
          break;
        case 'substitute': {
          if (shadow) break;
          const latchKey = `latch:${e.markerRule}:${e.markerScope}:${pkey}:${b.key}`;
          const latched = markers?.[latchKey] !== undefined;
          if (!crossed && !latched) break;
          if (crossed && !latched && !d.latches.some((x) => x.key === latchKey)) {
            d.latches.push({ key: latchKey, ruleId: e.ruleId, expiresAt: b.end });
          }
          d.substitute ??= { ruleId: e.ruleId, to: a.to, latchKey, expiresAt: b.end };
          break;
        }
      }
    }
  }
  if (!d.allowed) d.retryAfterS = Math.max(1, Math.ceil((st.retryAt - t) / 1000));
  d.governing = governing(d.utilization);
  return d;
}

/**
 * What the budget headers show: the enforced hard cap with the least left (ties: the fuller
 * one); without hard caps, the enforced pause entry nearest its threshold.
 */
function governing(util: readonly Utilization[]): Utilization | undefined {
  let best: Utilization | undefined;
  for (let i = 0; i < util.length; i++) {
    const u = util[i] as Utilization;
    if (!u.enforced) continue;
    if (best === undefined) best = u;
    else if (u.action !== best.action) {
      if (u.action === 'block') best = u;
    } else if (
      u.action === 'block'
        ? u.remainingMicros < best.remainingMicros || (u.remainingMicros === best.remainingMicros && u.ratio > best.ratio)
        : u.ratio > best.ratio
    )
      best = u;
  }
  return best;
}

interface BlockState {
  d: SpendDecision;
  retryAt: number;
}

/** Record a blocking entry: enforced → refuse (first in precedence limits), shadow → would-block. */
function block(
  st: BlockState,
  e: CompiledSpendEntry,
  b: WindowBounds,
  limit: number,
  spent: number,
  pool: string,
  shadow: boolean,
  kind: 'spend_limit' | 'paused',
  until: number,
): void {
  const d = st.d;
  if (shadow) {
    if (!d.wouldBlock.includes(e.ruleId)) d.wouldBlock.push(e.ruleId);
    return;
  }
  const reason = kind === 'paused' ? e.pausedReason : e.limitReason;
  d.allowed = false;
  if (!d.reasons.includes(reason)) d.reasons.push(reason);
  d.limiting ??= {
    ruleId: e.ruleId,
    reason,
    per: e.per,
    pool,
    scope: e.scope.name,
    window: e.window,
    windowKey: b.key,
    limitMicros: limit,
    usedMicros: spent,
    resetsAt: b.end,
  };
  if (until > st.retryAt) st.retryAt = until;
}

function utilization(
  e: CompiledSpendEntry,
  b: WindowBounds,
  limit: number,
  spent: number,
  pool: string,
  pkey: string,
  action: 'block' | 'pause',
  enforced: boolean,
  message: string | undefined,
): Utilization {
  const u: Utilization = {
    ruleId: e.ruleId,
    action,
    per: e.per,
    pool,
    poolKey: pkey,
    scope: e.scope.name,
    window: e.window,
    windowKey: b.key,
    limitMicros: limit,
    usedMicros: spent,
    remainingMicros: Math.max(0, limit - spent),
    ratio: spent / limit,
    resetsAt: b.end,
    enforced,
  };
  if (message !== undefined) u.message = message;
  return u;
}
