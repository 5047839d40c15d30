import { GatewayError } from '@tollgate/codecs/base';
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
  windowKeys,
  type CounterValues,
  type SpendDecision,
} from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { SpendConstraint, StateStore } from '../store/types.js';
import type { RequestContext } from './context.js';

/** The counter c(principal, model, window): committed micro-USD. */
export function counterKey(principalId: string, windowKey: string, model: string): string {
  return `c:${principalId}:${windowKey}:${model}`;
}

export interface Admission {
  spend: SpendDecision | null;
  /** Budget-tier substitution: serve this model instead (already access-checked). */
  substitute?: { from: string; to: string; ruleId: string };
  /** The reservation made (0 when no cap applies). */
  reserved: number;
  holdKeys: string[];
}

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
  reservationTtlMs: number;
  /** Spend notifications to deliver (once per crossing). */
  notify?: (notification: SpendNotification, principal: Principal) => void;
  /** Set after a substitution: rate limits were taken already and no further substitution. */
  substituted?: boolean;
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
 */
export async function admit(input: AdmissionInput): Promise<Admission> {
  const { ctx, policy, store, principal, model, now } = input;
  if (policy === null) return { spend: null, reserved: 0, holdKeys: [] };
  const registry = input.registry;

  // The spend counters do not depend on the rate check: ask for them at the same time, so a
  // shared store answers both in one round trip instead of two. Budgets are views over
  // counters: read exactly the counters the policy's rules can see, in the layout's order.
  const spendRules = policy.spend?.rules ?? [];
  const layout = spendRules.length === 0 ? null : counterLayout({ policy, registry, now });
  const keys = layout === null ? [] : layout.slots.map((slot) => counterKey(principal.id, slot.windowKey, slot.model));
  const counterRead =
    layout === null
      ? null
      : (async () => store.getCounters(keys))().then(
          (values) => ({ ok: true as const, values }),
          (cause: unknown) => ({ ok: false as const, cause }),
        );

  const rate = input.substituted ? { constraints: [] as ReturnType<typeof decideRate>['constraints'] } : decideRate({ policy, registry, principal, model, tokens: input.tokenBound });
  if (rate.constraints.length > 0) {
    const buckets = rate.constraints.map((c) => ({ key: c.key, limit: c.limit, windowMs: c.windowMs, cost: c.amount ?? 1 }));
    let result: Awaited<ReturnType<StateStore['hitRate']>> | null = null;
    try {
      result = await store.hitRate(buckets);
    } catch (cause) {
      const failClosed = rate.constraints.some((c) => c.onStoreError === 'closed');
      if (failClosed) {
        throw new AdmissionRefused(
          new GatewayError('unavailable', 'Rate limits cannot be checked right now; try again shortly.', { cause, retryAfterS: 1 }),
          'store_unavailable:rate',
          {},
        );
      }
    }
    if (result !== null && !result.ok) {
      const refused = rate.constraints.find((c) => c.key === result.key);
      const retryAfterS = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      throw new AdmissionRefused(
        new GatewayError('rate_limited', 'Rate limit reached for this key; retry shortly.', { retryAfterS }),
        refused?.reason ?? 'rate_limit',
        { 'retry-after': String(retryAfterS) },
      );
    }
  }

  if (layout === null || counterRead === null) return { spend: null, reserved: 0, holdKeys: [] };
  const read = await counterRead;
  if (!read.ok) throw storeDown(read.cause);
  const values = read.values;
  const counters: CounterValues = { layout, values: keys.map((k) => values[k] ?? 0) };
  const base = { policy, registry, principal, model, counters, now, costMicros: input.worstCaseMicros };
  let spend = decideSpend(base);
  // One-shot state (pauses, notifications, substitution latches) lives in the store: when the
  // first decision names markers, read them and decide again with them.
  const markerKeys = [...spend.pauses.map((p) => p.key), ...spend.notifications.map((n) => n.key), ...spend.latches.map((l) => l.key)];
  if (spend.substitute !== undefined) markerKeys.push(spend.substitute.latchKey);
  if (markerKeys.length > 0) {
    const markers = await readMarkers(store, markerKeys, now);
    spend = decideSpend({ ...base, markers });
    await applyEffects(store, spend, now, principal, input.notify);
  }
  ctx.wouldBlock.push(...spend.wouldBlock.filter((id) => !ctx.wouldBlock.includes(id)));
  if (spend.substitute !== undefined && !input.substituted) {
    const choice = decideSubstitution({ policy, registry, principal, model, spend, now, counters });
    if (choice.type === 'substitute') return { spend, reserved: 0, holdKeys: [], substitute: { from: choice.from, to: choice.to, ruleId: choice.ruleId } };
    if (choice.type === 'refuse') throw quota(choice.reason);
  }
  if (!spend.allowed) throw quota(spend.reasons[0] ?? 'spend_limit');

  if (spend.hardCaps.length === 0) return { spend, reserved: 0, holdKeys: [] };
  const constraints: SpendConstraint[] = spend.hardCaps.map((cap: HardCap) => ({
    key: cap.key,
    limit: cap.limitMicros,
    counters: cap.models.map((m) => counterKey(cap.principalId, cap.windowKey, m)),
  }));
  let reserved;
  try {
    reserved = await store.reserve({ id: ctx.id, amount: input.worstCaseMicros, ttlMs: input.reservationTtlMs, constraints });
  } catch (cause) {
    throw storeDown(cause);
  }
  if (!reserved.ok) {
    const cap = spend.hardCaps.find((c) => c.key === reserved.key);
    throw quota(cap?.reason ?? 'spend_limit');
  }
  return { spend, reserved: input.worstCaseMicros, holdKeys: constraints.map((c) => c.key) };
}

/**
 * A spend cap: 429 with the format's quota error and `x-should-retry: false`, and no
 * retry-after (SDKs would otherwise sleep until the window resets).
 */
function quota(reason: string): AdmissionRefused {
  const error = new GatewayError('quota_exceeded', 'The spend limit for this model has been reached.');
  return new AdmissionRefused(error, reason, { 'x-should-retry': 'false' });
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
async function readMarkers(store: StateStore, keys: readonly string[], now: number): Promise<Markers> {
  const markers: Record<string, number> = {};
  try {
    await Promise.all(
      keys.map(async (key) => {
        if (!(await store.hasMarker(key))) return;
        const paused = key.includes('pause:') ? await store.hasMarker(`${key}:active`) : false;
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
): Promise<void> {
  try {
    for (const p of spend.pauses) {
      await store.setOnce(p.key, Math.max(1, p.expiresAt - now));
      await store.setOnce(`${p.key}:active`, Math.max(1, p.until - now));
    }
    for (const l of spend.latches) await store.setOnce(l.key, Math.max(1, l.expiresAt - now));
    for (const n of spend.notifications) {
      if ((await store.setOnce(n.key, Math.max(1, n.expiresAt - now))) && notify !== undefined) {
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

/** Every counter a request's cost is charged to: c(principal, model, w) for every window. */
export function chargeKeys(principalId: string, model: string, now: number, timezone: string): string[] {
  const keys = windowKeys(now, timezone);
  return Object.values(keys).map((wk) => counterKey(principalId, wk, model));
}
