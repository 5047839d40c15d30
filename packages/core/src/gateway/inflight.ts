/**
 * In-flight limits (`concurrent: N`) at admission: each request holds one unit of every limit
 * that applies to it (its own, its team's, …) in its reservation, beside the spend caps, from
 * admission until it settles — a stream until it ends. Shadow limits are soft: counted, reported
 * in `would_block` when passed, never refusing.
 */
import { GatewayError } from '@tollgate/codecs/base';
import type { ConcurrencyConstraint } from '@tollgate/policy';
import type { ReserveResult, SpendConstraint } from '../store/types.js';
import { AdmissionRefused } from './admission.js';
import type { RequestContext } from './context.js';

/** What a reservation is made against besides spend caps: the request's in-flight limits. */
export interface Limits {
  /** Enforced and shadow in-flight limits, for naming the one that refused. */
  concurrency: readonly ConcurrencyConstraint[];
  /** As store constraints: one unit each; shadow ones soft. */
  inflight: SpendConstraint[];
  tag: string;
}

/** In-flight limits as store constraints: one unit held per request, shadow ones soft (counted, never refusing). */
export function inflightConstraints(live: readonly ConcurrencyConstraint[], shadow: readonly ConcurrencyConstraint[], tag: string): SpendConstraint[] {
  return [
    ...live.map((c) => ({ key: tag + c.key, limit: c.limit, counters: [], amount: 1 })),
    ...shadow.map((c) => ({ key: tag + c.key, limit: c.limit, counters: [], amount: 1, soft: true })),
  ];
}

export const closedInflight = (limits: Limits): boolean =>
  limits.inflight.some((c) => c.soft !== true && limits.concurrency.find((x) => limits.tag + x.key === c.key)?.onStoreError === 'closed');

/** Shadow in-flight limits the reservation took past their limit: recorded in `would_block`. */
export function noteOver(ctx: RequestContext, reserved: ReserveResult | null, limits: Limits): void {
  if (reserved === null || !reserved.ok || reserved.over === undefined) return;
  for (const key of reserved.over) {
    const c = limits.concurrency.find((x) => limits.tag + x.key === key);
    if (c !== undefined && !ctx.wouldBlock.includes(c.reason)) ctx.wouldBlock.push(c.reason);
  }
}

/** Too many requests of this caller (or its pool) in flight: 429, retry in a second. */
export function inflightRefused(c: ConcurrencyConstraint): AdmissionRefused {
  const whose = c.per === 'user' ? 'this key' : c.per === 'org' ? 'the organisation' : `this ${c.per === 'bu' ? 'business unit' : c.per}`;
  return new AdmissionRefused(
    new GatewayError('rate_limited', `Too many requests in flight for ${whose} (limit ${c.limit}); retry when one finishes.`, { retryAfterS: 1, limit: 'requests' }),
    c.reason,
    { 'retry-after': '1', 'retry-after-ms': '1000' },
  );
}

