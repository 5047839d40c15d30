/**
 * `decideSpend`: every budget is a view over counters c(principal, model, window) summed over
 * the scope's models, so a rule added mid-window already sees the window's spend. Admission
 * is decided here; the atomic arithmetic (counted + reserved + cost ≤ limit) is the store's,
 * from `hardCaps`.
 */
import { SPEND_WINDOWS, boundsAt, calendarDay, toEpochMs, type CalendarDay, type SpendWindow, type WindowBounds } from './calendar.js';
import { compiled, type CompiledPolicy, type CompiledSpendEntry } from './compile.js';
import { isCounterValues, layoutOwner, type CounterValues } from './counters.js';
import { principalKey } from './keys.js';
import type { SpendAction } from './policy-types.js';
import type { HardCap, SpendCounters, SpendDecision, SpendInput, Utilization } from './spend-types.js';

const HOUR_MS = 3_600_000;

/** Reused buffers for scope sums, one set per compiled policy; stamps avoid clearing. */
interface Scratch {
  gen: number;
  /** Per distinct population: the generation it was evaluated in, and the result. */
  popStamp: Uint32Array;
  popMatch: Uint8Array;
  windowStamp: Uint32Array;
  perModel: Float64Array;
  sumStamp: Uint32Array;
  sums: Float64Array;
}

const scratches = new WeakMap<CompiledPolicy, Scratch>();

function scratchFor(c: CompiledPolicy): Scratch {
  let s = scratches.get(c);
  if (s === undefined) {
    s = {
      gen: 0, popStamp: new Uint32Array(c.populations), popMatch: new Uint8Array(c.populations), windowStamp: new Uint32Array(5), perModel: new Float64Array(5 * c.modelIds.length),
      sumStamp: new Uint32Array(5 * c.scopes.length), sums: new Float64Array(5 * c.scopes.length),
    };
    scratches.set(c, s);
  }
  if (++s.gen === 0xffffffff) {
    s.gen = 1;
    s.windowStamp.fill(0);
    s.sumStamp.fill(0);
    s.popStamp.fill(0);
  }
  return s;
}

/** Fills the per-model counters of one window; false when a counter is not a usable amount. */
function fillWindow(c: CompiledPolicy, s: Scratch, w: number, byModel: Readonly<Record<string, number>> | undefined): boolean {
  const n = c.modelIds.length;
  const base = w * n;
  for (let i = 0; i < n; i++) s.perModel[base + i] = 0;
  s.windowStamp[w] = s.gen;
  if (byModel === undefined) return true;
  for (const id in byModel) {
    const m = c.modelIndex.get(id);
    if (m === undefined) continue;
    const v = byModel[id];
    if (typeof v !== 'number' || !(v >= 0) || v === Infinity) return false;
    s.perModel[base + m] = v;
  }
  return true;
}

/** Spend of the entry's scope in its current window, or -1 for an unusable counter. */
function used(c: CompiledPolicy, s: Scratch, e: CompiledSpendEntry, b: WindowBounds, counters: SpendCounters | undefined, vec: CounterValues | undefined): number {
  const slot = e.windowIdx * c.scopes.length + e.scopeIdx;
  if (s.sumStamp[slot] === s.gen) return s.sums[slot] as number;
  let total = 0;
  if (vec !== undefined) {
    const values = vec.values;
    const base = (c.windowSlot[e.windowIdx] as number) * c.covered.length;
    const slots = e.scope.slots;
    for (let i = 0; i < slots.length; i++) {
      const v = values[base + (slots[i] as number)] as number;
      if (!(v >= 0) || v === Infinity) return -1;
      total += v;
    }
  } else {
    if (s.windowStamp[e.windowIdx] !== s.gen && !fillWindow(c, s, e.windowIdx, (counters as SpendCounters)[b.key])) return -1;
    const base = e.windowIdx * c.modelIds.length;
    const models = e.scope.models;
    for (let i = 0; i < models.length; i++) total += s.perModel[base + (models[i] as number)] as number;
  }
  s.sums[slot] = total;
  s.sumStamp[slot] = s.gen;
  return total;
}

/** A counter vector must come from `counterLayout` for this policy, at the same window keys. */
function vectorProblem(c: CompiledPolicy, vec: CounterValues, cal: CalendarDay): string | undefined {
  const layout = vec.layout;
  if (layoutOwner(layout) !== c) return 'spend_error:counter_layout';
  if (vec.values.length < layout.size) return 'spend_error:invalid_counter';
  for (let w = 0; w < c.windows.length; w++) {
    if (layout.windowKeys[w] !== boundsAt(cal, SPEND_WINDOWS.indexOf(c.windows[w] as SpendWindow)).key) return 'spend_error:stale_counters';
  }
  return undefined;
}

function emptyDecision(enforced: boolean): SpendDecision {
  return {
    allowed: true, enforced, utilization: [], notifications: [], messages: [], pauses: [], latches: [],
    hardCaps: [], shadowCaps: [], wouldBlock: [], reasons: [], noPromote: false,
  };
}

function failClosed(d: SpendDecision, reason: string): SpendDecision {
  return { ...emptyDecision(d.enforced), allowed: false, reasons: [reason] };
}

/**
 * Decide whether `principal` may spend on `model` now. Entries are evaluated in precedence
 * order (rule weight, higher first; then file order); all that match apply. A BU override for
 * the principal's BU replaces the threshold (and actions) of the platform entry it names.
 * Shadow mode (policy, input or rule) computes everything and blocks nothing. An unknown
 * model or an unusable counter fails closed, in every mode.
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
  const pkey = principalKey(p);
  const overrides = p.bu === undefined ? undefined : c.overrides.get(p.bu);
  const markers = input.markers;
  const cost = input.costMicros;
  const cal = calendarDay(t, c.timezone);
  const vec = isCounterValues(input.counters) ? input.counters : undefined;
  const counters = vec === undefined ? (input.counters as SpendCounters) : undefined;
  if (vec !== undefined) {
    const problem = vectorProblem(c, vec, cal);
    if (problem !== undefined) return failClosed(d, problem);
  }
  const s = scratchFor(c);
  const st: BlockState = { d, retryAt: 0 };

  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as CompiledSpendEntry;
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
    const b = boundsAt(cal, e.windowIdx);
    const spent = used(c, s, e, b, counters, vec);
    if (spent < 0) return failClosed(d, 'spend_error:invalid_counter');
    const crossed = spent >= limit;
    const shadow = shadowAll || e.shadow;

    for (let k = 0; k < actions.length; k++) {
      const a = actions[k] as SpendAction;
      switch (a.type) {
        case 'block': {
          const cap: HardCap = {
            key: `${e.capPrefix}${pkey}:${b.key}`, ruleId: e.ruleId, principalId: pid, principalKey: pkey,
            models: e.scope.ids, scope: e.scope.name, window: e.window, windowKey: b.key, windowEndsAt: b.end,
            limitMicros: limit, usedMicros: spent, reason: e.limitReason,
          };
          (shadow ? d.shadowCaps : d.hardCaps).push(cap);
          d.utilization.push(utilization(e, 'block', b, limit, spent, !shadow));
          if (crossed || (cost !== undefined && spent + cost > limit)) {
            block(st, e, shadow, 'spend_limit', b.end, b, limit, spent);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'pause': {
          const key = `${shadow ? 'shadow:' : ''}pause:${e.markerRule}:${pkey}:${b.key}`;
          const until = markers?.[key];
          d.utilization.push(utilization(e, 'pause', b, limit, spent, !shadow));
          let pausedUntil = 0;
          if (until !== undefined) pausedUntil = until > t ? until : 0; // served once this window
          else if (crossed) {
            pausedUntil = Math.min(t + a.hours * HOUR_MS, b.end);
            if (!d.pauses.some((x) => x.key === key)) d.pauses.push({ key, ruleId: e.ruleId, until: pausedUntil, expiresAt: b.end });
          }
          if (pausedUntil > 0) {
            block(st, e, shadow, 'paused', pausedUntil, b, limit, spent);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'notify': {
          if (!crossed) break;
          const key = `${shadow ? 'shadow:' : ''}notify:${e.markerEntry}:${pkey}:${b.key}`;
          if (markers?.[key] !== undefined) break;
          d.notifications.push({
            key, ruleId: e.ruleId, to: a.to, principalId: pid, scope: e.scope.name, window: e.window, windowKey: b.key,
            thresholdMicros: limit, usedMicros: spent, expiresAt: b.end, shadow,
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
  const util = d.utilization;
  for (let i = 0; i < util.length; i++) {
    const u = util[i] as Utilization;
    if (u.enforced && (d.governing === undefined || u.ratio > d.governing.ratio)) d.governing = u;
  }
  return d;
}

interface BlockState {
  d: SpendDecision;
  retryAt: number;
}

/** Record a blocking entry: enforced → refuse (first in precedence limits), shadow → would-block. */
function block(
  st: BlockState, e: CompiledSpendEntry, shadow: boolean, kind: 'spend_limit' | 'paused', until: number,
  b: WindowBounds, limit: number, spent: number,
): void {
  const d = st.d;
  if (shadow) {
    if (!d.wouldBlock.includes(e.ruleId)) d.wouldBlock.push(e.ruleId);
    return;
  }
  const reason = kind === 'paused' ? e.pausedReason : e.limitReason;
  d.allowed = false;
  if (!d.reasons.includes(reason)) d.reasons.push(reason);
  d.limiting ??= { ruleId: e.ruleId, reason, scope: e.scope.name, window: e.window, windowKey: b.key, limitMicros: limit, usedMicros: spent };
  if (until > st.retryAt) st.retryAt = until;
}

function utilization(e: CompiledSpendEntry, action: 'block' | 'pause', b: WindowBounds, limit: number, spent: number, enforced: boolean): Utilization {
  return {
    ruleId: e.ruleId, action, scope: e.scope.name, window: e.window, windowKey: b.key, limitMicros: limit,
    usedMicros: spent, remainingMicros: Math.max(0, limit - spent), ratio: spent / limit, resetsAt: b.end, enforced,
  };
}
