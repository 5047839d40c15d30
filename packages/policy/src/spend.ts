/**
 * `decideSpend`: every budget is a view over counters c(principal, model, window) summed over
 * the scope's models, so a rule added mid-window already sees the window's spend. Admission
 * is decided here; the atomic arithmetic (counted + reserved + cost ≤ limit) is the store's,
 * from `hardCaps`.
 */
import { boundsIn, calendarDay, toEpochMs, type WindowBounds } from './calendar.js';
import { compiled, type CompiledPolicy, type CompiledSpendEntry } from './compile.js';
import type { HardCap, SpendDecision, SpendInput, Utilization } from './spend-types.js';

const HOUR_MS = 3_600_000;

/** Reused buffers for scope sums, one set per compiled policy; stamps avoid clearing. */
interface Scratch {
  gen: number;
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
      gen: 0, windowStamp: new Uint32Array(5), perModel: new Float64Array(5 * c.modelIds.length),
      sumStamp: new Uint32Array(5 * c.scopes.length), sums: new Float64Array(5 * c.scopes.length),
    };
    scratches.set(c, s);
  }
  if (++s.gen === 0xffffffff) {
    s.gen = 1;
    s.windowStamp.fill(0);
    s.sumStamp.fill(0);
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
function used(c: CompiledPolicy, s: Scratch, e: CompiledSpendEntry, b: WindowBounds, input: SpendInput): number {
  const slot = e.windowIdx * c.scopes.length + e.scopeIdx;
  if (s.sumStamp[slot] === s.gen) return s.sums[slot] as number;
  if (s.windowStamp[e.windowIdx] !== s.gen && !fillWindow(c, s, e.windowIdx, input.counters[b.key])) return -1;
  const base = e.windowIdx * c.modelIds.length;
  const models = e.scope.models;
  let total = 0;
  for (let i = 0; i < models.length; i++) total += s.perModel[base + (models[i] as number)] as number;
  s.sums[slot] = total;
  s.sumStamp[slot] = s.gen;
  return total;
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
  const overrides = p.bu === undefined ? undefined : c.overrides.get(p.bu);
  const markers = input.markers;
  const cost = input.costMicros;
  const cal = calendarDay(t, c.timezone);
  const s = scratchFor(c);
  let retryAt = 0;

  const block = (e: CompiledSpendEntry, shadow: boolean, kind: 'spend_limit' | 'paused', until: number, b: WindowBounds, limit: number, spent: number): void => {
    if (shadow) {
      if (!d.wouldBlock.includes(e.ruleId)) d.wouldBlock.push(e.ruleId);
      return;
    }
    const reason = `${kind}:${e.ruleId}`;
    d.allowed = false;
    if (!d.reasons.includes(reason)) d.reasons.push(reason);
    d.limiting ??= { ruleId: e.ruleId, reason, scope: e.scope.name, window: e.window, windowKey: b.key, limitMicros: limit, usedMicros: spent };
    if (until > retryAt) retryAt = until;
  };

  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as CompiledSpendEntry;
    if (!e.pop.matches(p)) continue;
    const o = overrides?.get(e.entryKey);
    const limit = o === undefined ? e.thresholdMicros : o.thresholdMicros;
    const actions = o === undefined ? e.actions : o.actions;
    const b = boundsIn(cal, e.window);
    const spent = used(c, s, e, b, input);
    if (spent < 0) return failClosed(d, 'spend_error:invalid_counter');
    const crossed = spent >= limit;
    const shadow = shadowAll || e.shadow;

    for (const a of actions) {
      switch (a.type) {
        case 'block': {
          const cap: HardCap = {
            key: `spend:${e.ruleId}:${e.scope.name}:${pid}:${b.key}`, ruleId: e.ruleId, principalId: pid,
            models: e.scope.ids, scope: e.scope.name, window: e.window, windowKey: b.key, windowEndsAt: b.end,
            limitMicros: limit, usedMicros: spent, reason: `spend_limit:${e.ruleId}`,
          };
          (shadow ? d.shadowCaps : d.hardCaps).push(cap);
          d.utilization.push(utilization(e, 'block', b, limit, spent, !shadow));
          if (crossed || (cost !== undefined && spent + cost > limit)) {
            block(e, shadow, 'spend_limit', b.end, b, limit, spent);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'pause': {
          const key = `${shadow ? 'shadow:' : ''}pause:${e.ruleId}:${pid}:${b.key}`;
          const until = markers?.[key];
          d.utilization.push(utilization(e, 'pause', b, limit, spent, !shadow));
          let pausedUntil = 0;
          if (until !== undefined) pausedUntil = until > t ? until : 0; // served once this window
          else if (crossed) {
            pausedUntil = Math.min(t + a.hours * HOUR_MS, b.end);
            if (!d.pauses.some((x) => x.key === key)) d.pauses.push({ key, ruleId: e.ruleId, until: pausedUntil, expiresAt: b.end });
          }
          if (pausedUntil > 0) {
            block(e, shadow, 'paused', pausedUntil, b, limit, spent);
            if (a.message !== undefined && !shadow) d.messages.push({ ruleId: e.ruleId, text: a.message });
          }
          break;
        }
        case 'notify': {
          if (!crossed) break;
          const key = `${shadow ? 'shadow:' : ''}notify:${e.entryKey}:${pid}:${b.key}`;
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
          const latchKey = `latch:${e.ruleId}:${e.scope.name}:${pid}:${b.key}`;
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
  if (!d.allowed) d.retryAfterS = Math.max(1, Math.ceil((retryAt - t) / 1000));
  for (const u of d.utilization) if (u.enforced && (d.governing === undefined || u.ratio > d.governing.ratio)) d.governing = u;
  return d;
}

function utilization(e: CompiledSpendEntry, action: 'block' | 'pause', b: WindowBounds, limit: number, spent: number, enforced: boolean): Utilization {
  return {
    ruleId: e.ruleId, action, scope: e.scope.name, window: e.window, windowKey: b.key, limitMicros: limit,
    usedMicros: spent, remainingMicros: Math.max(0, limit - spent), ratio: spent / limit, resetsAt: b.end, enforced,
  };
}
