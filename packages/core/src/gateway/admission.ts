import { GatewayError, type CostField } from '@tollgate/codecs/base';
import {
  decideRate,
  decideSpend,
  decideSubstitution,
  type Markers,
  type SpendNotification,
  type HardCap,
  type Policy,
  type Principal,
  counterLayout,
  type CounterLayout,
  type CounterValues,
  type SpendDecision,
  type RateConstraint,
} from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { AdmitResult, RateBucket, ReserveResult, SpendConstraint, StateStore } from '../store/types.js';
import type { RequestContext } from './context.js';
import { budgetHeaders } from './budget-headers.js';
import { capCounters, keyTag, layoutKeys, layoutValues, type TenantOf } from './keys.js';
import { tokenAdjustments } from './finalize.js';
import { closedInflight, inflightLimits, inflightRefused, noteOver, type Limits } from './inflight.js';
import { countShadowRate } from './shadow-rate.js';

export interface Admission {
  spend: SpendDecision | null;
  /** Budget-tier substitution: serve this model instead (already access-checked). */
  substitute?: { from: string; to: string; ruleId: string };
  /** The worst case reserved against hard caps (0 when no cap applies). */
  reserved: number;
  /**
   * A hold was made (hard caps, in-flight limits): it must be renewed until the request
   * settles, and settled or released — that is what frees the request's in-flight places.
   */
  held: boolean;
  holdKeys: string[];
}

const NOTHING = (spend: SpendDecision | null): Admission => ({ spend, reserved: 0, held: false, holdKeys: [] });

export interface AdmissionInput {
  ctx: RequestContext;
  policy: Policy | null;
  registry: Registry;
  store: StateStore;
  principal: Principal;
  model: string;
  now: number;
  worstCaseMicros: number;
  tokenBound: number;
  /** Request fields whose cost no bound covers: refused when a hard cap applies. */
  unbounded?: readonly CostField[];
  reservationTtlMs: number;
  /** Spend notifications to deliver (once per crossing). */
  notify?: (notification: SpendNotification, principal: Principal) => void;
  /** Set after a substitution: rate limits were taken already and no further substitution. */
  substituted?: boolean;
  /** Whether a budget-tier substitute can serve this request (capabilities, context, route); skipped when not. */
  canSubstitute?: (model: string, spend: SpendDecision) => boolean;
  /** The tenant whose hash tag the principal's keys carry (`GatewayOptions.tenantOf`). */
  tenantOf?: TenantOf;
}

/** Thrown when admission refuses; carries the record reason and extra response headers. */
export class AdmissionRefused extends Error {
  constructor(
    readonly error: GatewayError,
    readonly reason: string,
    readonly headers: Record<string, string>,
  ) {
    super(reason);
  }
}

/**
 * Rate and spend admission, before any upstream call: rate buckets are taken, the spend
 * decision made over the counters, and the worst-case cost reserved atomically against every
 * hard cap. Refusals throw `AdmissionRefused`.
 *
 * With a store that has `admit`, that is one store call (one round trip to Redis: governance
 * costs one per request, see docs/architecture.md): which caps apply does not depend on what
 * has been spent, so they are known before the counters are read, and the store takes the
 * buckets, reads the counters and reserves in one atomic step. The decision is then made over the counters it read; when it refuses, or picks a
 * substitute model, the hold is released. A decision that would refuse even with nothing spent
 * (or substitutes), and a store that answers `null` (keys it cannot take in one step), take the
 * step-by-step path, which never reserves before deciding.
 */
export async function admit(input: AdmissionInput): Promise<Admission> {
  const shadow = countShadowRate(input);
  try {
    const admission = await admitOnce(input);
    await shadow;
    return admission;
  } catch (error) {
    await shadow;
    const ctx = input.ctx;
    if (error instanceof AdmissionRefused && ctx.tokenBuckets.length > 0) {
      // Refused after its token buckets were taken: nothing ran, so the tokens go back (the
      // request still counts against requests per minute).
      await input.store.settle({ id: ctx.id, charges: [], rate: tokenAdjustments(ctx, 0) }).catch(() => {});
      ctx.tokenBuckets = [];
    }
    throw error;
  }
}

async function admitOnce(input: AdmissionInput): Promise<Admission> {
  const { ctx, policy, store, principal, model, now } = input;
  // Every key of this principal carries its tenant's tag (when there is one); settle uses it too.
  const tag = (ctx.keyTag = keyTag(principal, input.tenantOf));
  if (policy === null) return NOTHING(null);
  const registry = input.registry;

  // Budgets are views over counters: read exactly the counters the policy's rules can see — the
  // caller's own and those of the pools it belongs to — in the layout's order.
  const spendRules = policy.spend?.rules ?? [];
  const layout = spendRules.length === 0 ? null : counterLayout({ policy, registry, now });
  const lk = layout === null ? null : layoutKeys(layout, principal, tag);
  const keys = lk === null ? [] : lk.keys;
  const rate = decideRate({ policy, registry, principal, model, tokens: input.tokenBound });
  // After a substitution, the buckets the requested model's admission counted are not counted
  // again; those only the substitute's scope reaches are. In-flight places are held again (the
  // first admission's hold was given back with its decision).
  const earlier = input.substituted ? ctx.admittedRate : [];
  const rateConstraints = input.substituted ? rate.constraints.filter((c) => !earlier.some((e) => e.key === c.key)) : rate.constraints;
  const buckets = rateConstraints.map((c) => ({ key: tag + c.key, limit: c.limit, windowMs: c.windowMs, cost: c.amount ?? 1 }));
  const limits: Limits = inflightLimits(rate.concurrency, rate.shadowConcurrency, tag);
  const inflight = limits.inflight;
  ctx.noteAdmission(input.worstCaseMicros, input.tokenBound, earlier.length === 0 ? rateConstraints : [...earlier, ...rateConstraints], now);
  const base = { policy, registry, principal, model, now, costMicros: input.worstCaseMicros };
  // Which caps apply does not depend on what was spent: known before anything is taken.
  const before = layout === null ? null : unspent(layout, base, tag);
  if (input.unbounded !== undefined && input.unbounded.length > 0 && before !== null) {
    if (before.caps.length > 0) throw unboundable(input.unbounded[0]!);
  }

  if ((layout !== null || inflight.length > 0) && store.admit !== undefined) {
    // The kept caps are copied for each request: a store may fill in or rewrite the constraints it is handed.
    const caps = before === null ? [] : before.caps.map(copyConstraint);
    const constraints = [...caps, ...inflight];
    let result: AdmitResult | null = null;
    if (before === null || (before.allowed && !before.substitute && fitsUnspent(before.caps, input.worstCaseMicros))) {
      try {
        result = await store.admit({
          buckets,
          counters: keys,
          // In-flight limits alone hold one unit each: the reservation's amount is the worst case only against caps.
          reserve:
            constraints.length === 0 ? null : { id: ctx.id, amount: caps.length > 0 ? input.worstCaseMicros : 0, ttlMs: input.reservationTtlMs, constraints },
        });
      } catch (cause) {
        // The answer may have been lost after the hold was made (a timeout): give it back.
        if (constraints.length > 0) await store.release(ctx.id).catch(() => {});
        if (rateConstraints.some((c) => c.onStoreError === 'closed') || closedInflight(limits)) throw rateUnavailable(cause);
        if (layout !== null) throw storeDown(cause);
        // Only limits that fail open: the step-by-step path admits what the store cannot check.
      }
    }
    if (result !== null) {
      if (!('counters' in result)) throw rateRefused(rateConstraints, result.rate, tag);
      noteTokenBuckets(ctx, rateConstraints, buckets, result.rate.windows);
      const reserved = result.reserve;
      if (layout === null || lk === null) {
        // In-flight limits only: no spend decision to make.
        if (reserved !== null && !reserved.ok) throw refusal(reserved, null, limits);
        noteOver(ctx, reserved, limits);
        return { spend: null, reserved: 0, held: reserved !== null, holdKeys: constraints.map((c) => c.key) };
      }
      const counters: CounterValues = { layout, values: layoutValues(lk, result.counters) };
      try {
        const spend = await decide(input, base, counters);
        const done = concluded(input, spend, counters);
        if (done !== null) {
          if (reserved?.ok === true) await store.release(ctx.id).catch(() => {});
          return done;
        }
        const wanted = [...capConstraints(spend.hardCaps, tag), ...inflight];
        if (sameConstraints(constraints, wanted)) {
          if (reserved !== null && !reserved.ok) throw refusal(reserved, spend, limits);
          noteOver(ctx, reserved, limits);
          return { spend, reserved: spend.hardCaps.length > 0 ? input.worstCaseMicros : 0, held: reserved !== null, holdKeys: constraints.map((c) => c.key) };
        }
        // The caps differ from those reserved against (a decision over real counters should
        // never change them; if it does, reserve again against the ones that apply).
        if (reserved?.ok === true) await store.release(ctx.id).catch(() => {});
        return await reserveFor(input, spend, limits);
      } catch (error) {
        if (reserved?.ok === true) await store.release(ctx.id).catch(() => {});
        throw error;
      }
    }
  }

  // Step by step. The spend counters do not depend on the rate check: ask for them at the same
  // time, so a shared store answers both in one round trip instead of two.
  const counterRead =
    layout === null
      ? null
      : (async () => store.getCounters(keys))().then(
          (values) => ({ ok: true as const, values }),
          (cause: unknown) => ({ ok: false as const, cause }),
        );
  if (buckets.length > 0) {
    let result: Awaited<ReturnType<StateStore['hitRate']>> | null = null;
    try {
      result = await store.hitRate(buckets);
    } catch (cause) {
      if (rateConstraints.some((c) => c.onStoreError === 'closed')) throw rateUnavailable(cause);
    }
    if (result !== null && !result.ok) throw rateRefused(rateConstraints, result, tag);
    if (result !== null && result.ok) noteTokenBuckets(ctx, rateConstraints, buckets, result.windows);
  }

  if (layout === null || lk === null || counterRead === null) return reserveFor(input, null, limits);
  const read = await counterRead;
  if (!read.ok) throw storeDown(read.cause);
  const counters: CounterValues = { layout, values: layoutValues(lk, read.values) };
  const spend = await decide(input, base, counters);
  return concluded(input, spend, counters) ?? (await reserveFor(input, spend, limits));
}

/** The refusal for a reservation a constraint refused: a spend cap (429 quota) or an in-flight limit (429, retry shortly). */
function refusal(reserved: Extract<ReserveResult, { ok: false }>, spend: SpendDecision | null, limits: Limits): AdmissionRefused {
  const inflight = limits.byKey.get(reserved.key);
  if (inflight !== undefined) return inflightRefused(inflight);
  const cap = spend?.hardCaps.find((c) => limits.tag + c.key === reserved.key);
  if (cap === undefined) return quota('spend_limit', spend);
  return quota(cap.reason, spend, {
    cap: {
      ruleId: cap.ruleId,
      limitMicros: cap.limitMicros,
      remainingMicros: cap.limitMicros - reserved.committed - reserved.held,
      resetsAt: cap.windowEndsAt,
    },
    message: cap.message,
  });
}

type SpendBase = Omit<Parameters<typeof decideSpend>[0], 'counters' | 'markers'>;

/**
 * The spend decision over the counters. One-shot state (pauses, notifications, substitution
 * latches) lives in the store: when the first decision names markers, read them and decide
 * again with them, then set what the decision asks for.
 */
async function decide(input: AdmissionInput, base: SpendBase, counters: CounterValues): Promise<SpendDecision> {
  let spend = decideSpend({ ...base, counters });
  if (spend.pauses.length > 0 || spend.notifications.length > 0 || spend.latches.length > 0 || spend.substitute !== undefined) {
    const markerKeys = [...spend.pauses.map((p) => p.key), ...spend.notifications.map((n) => n.key), ...spend.latches.map((l) => l.key)];
    if (spend.substitute !== undefined) markerKeys.push(spend.substitute.latchKey);
    const tag = input.ctx.keyTag;
    const markers = await readMarkers(input.store, markerKeys, input.now, tag);
    spend = decideSpend({ ...base, counters, markers });
    await applyEffects(input.store, spend, input.now, input.principal, input.notify, tag);
  }
  input.ctx.noteSpend(spend);
  const wouldBlock = input.ctx.wouldBlock;
  for (const id of spend.wouldBlock) if (!wouldBlock.includes(id)) wouldBlock.push(id);
  return spend;
}

/**
 * What the decision settles without a reservation: a substitute model, or a refusal (thrown).
 * Null when the request goes on to its reservation (which may be empty).
 */
function concluded(input: AdmissionInput, spend: SpendDecision, counters: CounterValues): Admission | null {
  if (spend.substitute !== undefined && !input.substituted) {
    const { policy, registry, principal, model, now } = input;
    const can = input.canSubstitute;
    const eligible = can === undefined ? undefined : (to: string) => can(to, spend);
    const choice = decideSubstitution({ policy: policy!, registry, principal, model, spend, now, counters, ...(eligible === undefined ? {} : { eligible }) });
    if (choice.type === 'substitute') return { ...NOTHING(spend), substitute: { from: choice.from, to: choice.to, ruleId: choice.ruleId } };
    if (choice.type === 'refuse') throw quota(choice.reason, spend);
  }
  if (!spend.allowed) throw quota(spend.reasons[0] ?? 'spend_limit', spend);
  return null;
}

/**
 * Reserve the worst case against the decision's hard caps and the in-flight limits (the
 * step-by-step path). A store that cannot take the reservation fails closed for spend caps and
 * in-flight limits that say so; it is all or nothing, so nothing is held halfway.
 */
async function reserveFor(input: AdmissionInput, spend: SpendDecision | null, limits: Limits): Promise<Admission> {
  const caps = spend === null ? [] : capConstraints(spend.hardCaps, limits.tag);
  const constraints = [...caps, ...limits.inflight];
  if (constraints.length === 0) return NOTHING(spend);
  let reserved;
  try {
    reserved = await input.store.reserve({ id: input.ctx.id, amount: caps.length > 0 ? input.worstCaseMicros : 0, ttlMs: input.reservationTtlMs, constraints });
  } catch (cause) {
    await input.store.release(input.ctx.id).catch(() => {});
    if (caps.length > 0) throw storeDown(cause);
    if (closedInflight(limits)) throw rateUnavailable(cause);
    return NOTHING(spend); // in-flight limits that fail open
  }
  if (!reserved.ok) throw refusal(reserved, spend, limits);
  noteOver(input.ctx, reserved, limits);
  return { spend, reserved: caps.length > 0 ? input.worstCaseMicros : 0, held: true, holdKeys: constraints.map((c) => c.key) };
}

/**
 * What the decision says with nothing spent, for one caller and model at the layout's instants,
 * without the request's cost: whether it allows (and substitutes), and its hard caps as store
 * constraints. The layout stands for the policy, the registry and the windows (it is made
 * again when either is reloaded or a window rolls over), so this is decided once per layout,
 * caller, model and tag and kept with the layout; `fitsUnspent` adds the request's cost. The
 * kept constraints never reach a store: each request hands it copies (`copyConstraint`).
 */
interface Unspent {
  allowed: boolean;
  substitute: boolean;
  caps: readonly SpendConstraint[];
}

const unspentMemo = new WeakMap<CounterLayout, WeakMap<Principal, Map<string, Unspent>>>();

/** Models and tags kept per caller and layout at most: past it the memo starts again. */
export const UNSPENT_MEMO_SIZE = 64;

function unspent(layout: CounterLayout, base: SpendBase, tag: string): Unspent {
  let byPrincipal = unspentMemo.get(layout);
  if (byPrincipal === undefined) unspentMemo.set(layout, (byPrincipal = new WeakMap<Principal, Map<string, Unspent>>()));
  let byModel = byPrincipal.get(base.principal);
  if (byModel === undefined) byPrincipal.set(base.principal, (byModel = new Map<string, Unspent>()));
  const memoKey = `${tag}\n${base.model}`;
  const hit = byModel.get(memoKey);
  if (hit !== undefined) return hit;
  const { policy, registry, principal, model, now } = base;
  const d = decideSpend({ policy, registry, principal, model, now, counters: { layout, values: new Float64Array(layout.size) } });
  const made: Unspent = {
    allowed: d.allowed,
    substitute: d.substitute !== undefined,
    caps: capConstraints(d.hardCaps, tag),
  };
  if (byModel.size >= UNSPENT_MEMO_SIZE) byModel.clear();
  byModel.set(memoKey, made);
  return made;
}

/**
 * Whether the request's worst case fits every hard cap with nothing spent: a block entry also
 * refuses when used + cost passes its threshold (`SpendInput.costMicros`), and with nothing
 * used that is cost > limit. The hard caps are the enforced block entries, the only ones that
 * check the cost.
 */
function fitsUnspent(caps: readonly SpendConstraint[], costMicros: number): boolean {
  for (const c of caps) if (costMicros > c.limit) return false;
  return true;
}

/** Hard caps as store constraints: each sums its pool's counters over its scope's models and window keys. */
/** A constraint of the request's own: the counter list is shared (the store's types make it read-only). */
function copyConstraint(c: SpendConstraint): SpendConstraint {
  return { ...c };
}

function capConstraints(caps: readonly HardCap[], tag: string): SpendConstraint[] {
  return caps.map((cap) => ({ key: tag + cap.key, limit: cap.limitMicros, counters: capCounters(cap, tag) }));
}

function sameConstraints(a: readonly SpendConstraint[], b: readonly SpendConstraint[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => c.key === b[i]!.key && c.limit === b[i]!.limit && c.soft === b[i]!.soft && sameCounters(c.counters, b[i]!.counters))
  );
}

function sameCounters(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((key, i) => key === b[i]));
}

/** Remember the token buckets taken and their windows, so the settle can move them to what was used. */
function noteTokenBuckets(
  ctx: RequestContext,
  constraints: readonly RateConstraint[],
  buckets: readonly RateBucket[],
  windows: readonly number[] | undefined,
): void {
  if (windows === undefined) return; // a store that does not report windows keeps the worst case
  constraints.forEach((c, i) => {
    const start = windows[i];
    if (c.kind === 'tokens' && start !== undefined) ctx.tokenBuckets.push({ key: buckets[i]!.key, windowMs: c.windowMs, start, amount: buckets[i]!.cost });
  });
}

const per = (windowMs: number): string => (windowMs === 60_000 ? 'per minute' : `per ${Math.round(windowMs / 1000)} s`);

/**
 * A rate limit: 429 naming the limit that refused (requests or tokens, in the message and, for
 * OpenAI clients, the error's `type`) with a `retry-after` that is when its window rolls over.
 * A request that alone needs more tokens than the limit allows in a whole window will never
 * pass: it says so, and asks clients not to retry (`x-should-retry: false`).
 */
export function rateRefused(constraints: readonly RateConstraint[], result: { key: string; retryAfterMs: number }, tag: string): AdmissionRefused {
  const refused = constraints.find((c) => tag + c.key === result.key);
  const reason = refused?.reason ?? 'rate_limit';
  const kind = refused?.kind ?? 'requests';
  if (refused !== undefined && kind === 'tokens' && (refused.amount ?? 0) > refused.limit) {
    const error = new GatewayError(
      'rate_limited',
      `Request too large for the token rate limit: it may use up to ${refused.amount} tokens, and ${refused.limit} tokens ${per(refused.windowMs)} are allowed. Lower max_tokens or shorten the prompt.`,
      { limit: 'tokens' },
    );
    return new AdmissionRefused(error, reason, { 'x-should-retry': 'false' });
  }
  const retryAfterMs = Math.max(1, Math.ceil(result.retryAfterMs));
  const retryAfterS = Math.ceil(retryAfterMs / 1000);
  const what = refused === undefined ? 'this key' : `${kind} ${per(refused.windowMs)} (limit ${refused.limit})`;
  return new AdmissionRefused(
    new GatewayError('rate_limited', `Rate limit reached for ${what}; retry in ${retryAfterS} s.`, { retryAfterS, limit: kind }),
    reason,
    { 'retry-after': String(retryAfterS), 'retry-after-ms': String(retryAfterMs) },
  );
}

/** A field whose cost no bound covers, for a caller under a hard cap: 400 naming it, never sent. */
function unboundable(field: CostField): AdmissionRefused {
  const error = new GatewayError(
    'invalid_request',
    `The request field '${field.field}' cannot be used under a hard spend limit: ${field.reason}. Remove it, or use a key without a hard cap.`,
    { param: field.field },
  );
  return new AdmissionRefused(error, `unbounded_cost:${field.field}`, {});
}

function rateUnavailable(cause: unknown): AdmissionRefused {
  return new AdmissionRefused(
    new GatewayError('unavailable', 'Rate limits cannot be checked right now; try again shortly.', { cause, retryAfterS: 1 }),
    'store_unavailable:rate',
    {},
  );
}

/** What a spend refusal says beyond its reason: the cap that refused (for the budget headers), its entry's message. */
export interface QuotaDetail {
  cap?: { ruleId: string; limitMicros: number; remainingMicros: number; resetsAt: number };
  message?: string | undefined;
}

const QUOTA_TEXT = 'The spend limit for this model has been reached.';

/**
 * A spend cap: 429 with the format's quota error and `x-should-retry: false`, and no
 * retry-after (SDKs would otherwise sleep until the window resets). The error's message is the
 * refusing entry's `message` (and the texts of crossed `message` actions) when the policy
 * gives one; the budget headers name the cap that refused.
 */
export function quota(reason: string, spend: SpendDecision | null = null, detail: QuotaDetail = {}): AdmissionRefused {
  const texts: string[] = [];
  if (detail.message !== undefined) texts.push(detail.message);
  for (const m of spend?.messages ?? []) if (!texts.includes(m.text)) texts.push(m.text);
  const error = new GatewayError('quota_exceeded', texts.length === 0 ? QUOTA_TEXT : texts.join(' '));
  const headers: Record<string, string> = { 'x-should-retry': 'false' };
  const l = spend?.limiting;
  const cap =
    detail.cap ??
    (l === undefined ? undefined : { ruleId: l.ruleId, limitMicros: l.limitMicros, remainingMicros: l.limitMicros - l.usedMicros, resetsAt: l.resetsAt });
  if (cap !== undefined) budgetHeaders(cap, headers);
  return new AdmissionRefused(error, reason, headers);
}

function storeDown(cause: unknown): AdmissionRefused {
  return new AdmissionRefused(
    new GatewayError('unavailable', 'Spend limits cannot be checked right now; try again shortly.', { cause }),
    'store_unavailable:spend',
    {},
  );
}

/**
 * Markers as the policy reads them. A pause is two markers: `<key>` (served this window, kept
 * to the window's end) and `<key>:active` (kept while the pause lasts); an active pause is
 * reported as lasting one more minute, so the caller retries in a minute and finds out again.
 */
async function readMarkers(store: StateStore, keys: readonly string[], now: number, tag: string): Promise<Markers> {
  const markers: Record<string, number> = {};
  try {
    await Promise.all(
      keys.map(async (key) => {
        if (!(await store.hasMarker(tag + key))) return;
        const paused = key.includes('pause:') ? await store.hasMarker(`${tag}${key}:active`) : false;
        markers[key] = paused ? now + 60_000 : key.includes('pause:') ? now - 1 : now;
      }),
    );
  } catch (cause) {
    throw storeDown(cause);
  }
  return markers;
}

/** Set the one-shot markers a decision asks for and deliver notifications once per crossing. */
async function applyEffects(
  store: StateStore,
  spend: SpendDecision,
  now: number,
  principal: Principal,
  notify: AdmissionInput['notify'],
  tag: string,
): Promise<void> {
  try {
    for (const p of spend.pauses) {
      await store.setOnce(tag + p.key, Math.max(1, p.expiresAt - now));
      await store.setOnce(`${tag}${p.key}:active`, Math.max(1, p.until - now));
    }
    for (const l of spend.latches) await store.setOnce(tag + l.key, Math.max(1, l.expiresAt - now));
    for (const n of spend.notifications) {
      if ((await store.setOnce(tag + n.key, Math.max(1, n.expiresAt - now))) && notify !== undefined) {
        try {
          notify(n, principal);
        } catch {
          // A failing notifier never affects traffic.
        }
      }
    }
  } catch (cause) {
    throw storeDown(cause);
  }
}
