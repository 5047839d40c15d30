/**
 * In-flight limits (`concurrent: N`) at admission: each request holds one unit of every limit
 * that applies to it (its own, its team's, …) in its reservation, beside the spend caps, from
 * admission until it settles — a stream until it ends. Shadow limits are soft and kept under
 * keys of their own (`shadow:`, as shadow rate buckets): counted, reported in `would_block`
 * when passed, never refusing, and never using up an enforced limit.
 */
import { GatewayError } from '@tollgate/codecs/base';
import type { ConcurrencyConstraint } from '@tollgate/policy';
import type { ReserveResult, SpendConstraint } from '../store/types.js';
import { AdmissionRefused } from './admission.js';
import type { RequestContext } from './context.js';
import { SHADOW_RATE_PREFIX } from './shadow-rate.js';

/** What a reservation is made against besides spend caps: the request's in-flight limits. */
export interface Limits {
  /** As store constraints: one unit each; shadow ones soft. */
  inflight: SpendConstraint[];
  /** Store key → the in-flight limit it holds (to name the one that refused or was passed). */
  byKey: ReadonlyMap<string, ConcurrencyConstraint>;
  tag: string;
}

/** Most requests are under no in-flight limit: one empty map for all of them (read only). */
const NO_LIMITS: ReadonlyMap<string, ConcurrencyConstraint> = new Map();

/** The request's in-flight limits as store constraints: one unit held per request, shadow ones soft (counted, never refusing). */
export function inflightLimits(live: readonly ConcurrencyConstraint[], shadow: readonly ConcurrencyConstraint[], tag: string): Limits {
  if (live.length === 0 && shadow.length === 0) return { inflight: [], byKey: NO_LIMITS, tag };
  const byKey = new Map<string, ConcurrencyConstraint>();
  const inflight: SpendConstraint[] = [];
  for (const c of live) {
    byKey.set(tag + c.key, c);
    inflight.push({ key: tag + c.key, limit: c.limit, counters: [], amount: 1 });
  }
  for (const c of shadow) {
    const key = tag + SHADOW_RATE_PREFIX + c.key;
    byKey.set(key, c);
    inflight.push({ key, limit: c.limit, counters: [], amount: 1, soft: true });
  }
  return { inflight, byKey, tag };
}

/** Whether an enforced in-flight limit fails closed when the store cannot be reached. */
export const closedInflight = (limits: Limits): boolean => limits.inflight.some((c) => c.soft !== true && limits.byKey.get(c.key)?.onStoreError === 'closed');

/** Shadow in-flight limits the reservation took past their limit: recorded in `would_block`. */
export function noteOver(ctx: RequestContext, reserved: ReserveResult | null, limits: Limits): void {
  if (reserved === null || !reserved.ok || reserved.over === undefined) return;
  for (const key of reserved.over) {
    const c = limits.byKey.get(key);
    if (c !== undefined && !ctx.wouldBlock.includes(c.reason)) ctx.wouldBlock.push(c.reason);
  }
}

/** Too many requests of this caller (or its pool) in flight: 429, retry in a second. */
export function inflightRefused(c: ConcurrencyConstraint): AdmissionRefused {
  const whose = c.per === 'user' ? 'this key' : c.per === 'org' ? 'the organisation' : `this ${c.per === 'bu' ? 'business unit' : c.per}`;
  return new AdmissionRefused(
    new GatewayError('rate_limited', `Too many requests in flight for ${whose} (limit ${c.limit}); retry when one finishes.`, {
      retryAfterS: 1,
      limit: 'requests',
    }),
    c.reason,
    { 'retry-after': '1', 'retry-after-ms': '1000' },
  );
}
