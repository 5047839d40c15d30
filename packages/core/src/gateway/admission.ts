import { GatewayError } from '@tollgate/codecs';
import {
  decideRate,
  decideSpend,
  windowKeys,
  type HardCap,
  type Policy,
  type Principal,
  type SpendCounters,
  type SpendDecision,
  type SpendWindow,
} from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { SpendConstraint, StateStore } from '../store/types.js';
import type { RequestContext } from './context.js';

/** The counter c(principal, model, window): committed micro-USD. */
export function counterKey(principalId: string, windowKey: string, model: string): string {
  return `c:${principalId}:${windowKey}:${model}`;
}

/** What the policy's spend rules can read, computed once per policy. */
export interface SpendPlan {
  /** Windows any spend rule uses. */
  windows: SpendWindow[];
  /** Models any spend rule's scope covers. */
  models: string[];
}

export function spendPlan(policy: Policy | null, registry: Registry): SpendPlan {
  const windows = new Set<SpendWindow>();
  const models = new Set<string>();
  for (const rule of policy?.spend?.rules ?? []) {
    for (const entry of rule.matches) {
      windows.add(entry.match.window);
      const scope = entry.match.scope;
      if (Object.hasOwn(registry.models, scope)) models.add(scope);
      else for (const m of Object.values(registry.models)) if (m.tags.includes(scope)) models.add(m.id);
    }
  }
  return { windows: [...windows], models: [...models] };
}

export interface Admission {
  spend: SpendDecision | null;
  /** The reservation made (0 when no cap applies). */
  reserved: number;
  holdKeys: string[];
}

export interface AdmissionInput {
  ctx: RequestContext;
  policy: Policy | null;
  registry: Registry;
  store: StateStore;
  plan: SpendPlan;
  principal: Principal;
  model: string;
  now: number;
  worstCaseMicros: number;
  tokenBound: number;
  reservationTtlMs: number;
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

  const rate = decideRate({ policy, registry, principal, model, tokens: input.tokenBound });
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

  const spendRules = policy.spend?.rules ?? [];
  if (spendRules.length === 0) return { spend: null, reserved: 0, holdKeys: [] };
  const tz = policy.timezone ?? 'UTC';
  const keysByWindow = windowKeys(now, tz);
  const counterKeys: string[] = [];
  for (const w of input.plan.windows) for (const m of input.plan.models) counterKeys.push(counterKey(principal.id, keysByWindow[w], m));
  let values: Record<string, number>;
  try {
    values = await store.getCounters(counterKeys);
  } catch (cause) {
    throw storeDown(cause);
  }
  const counters: Record<string, Record<string, number>> = {};
  for (const w of input.plan.windows) {
    const wk = keysByWindow[w];
    const row: Record<string, number> = {};
    for (const m of input.plan.models) row[m] = values[counterKey(principal.id, wk, m)] ?? 0;
    counters[wk] = row;
  }
  const spend = decideSpend({
    policy,
    registry,
    principal,
    model,
    counters: counters as SpendCounters,
    now,
    costMicros: input.worstCaseMicros,
  });
  ctx.wouldBlock.push(...spend.wouldBlock.filter((id) => !ctx.wouldBlock.includes(id)));
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

/** Every counter a request's cost is charged to: c(principal, model, w) for every window. */
export function chargeKeys(principalId: string, model: string, now: number, timezone: string): string[] {
  const keys = windowKeys(now, timezone);
  return Object.values(keys).map((wk) => counterKey(principalId, wk, model));
}
