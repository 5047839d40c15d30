import { decideRate, type Policy } from '@tollgate/policy';
import type { RateBucket } from '../store/types.js';
import type { AdmissionInput } from './admission.js';
import { keyTag } from './keys.js';

/** Where shadow buckets live, after the principal's tenant tag: apart from the enforced ones. */
export const SHADOW_RATE_PREFIX = 'shadow:';

const DONE: Promise<void> = Promise.resolve();

/** True when some rate limit of `policy` is evaluated in shadow (the policy's mode, or a rule's). */
function hasShadowRate(policy: Policy): boolean {
  const rules = policy.rate_limits ?? [];
  if (rules.length === 0) return false;
  if (policy.enforcement === 'shadow') return true;
  return rules.some((r) => r.enforcement === 'shadow');
}

/**
 * Shadow rate limits (`enforcement: shadow` on a rule, or the whole policy in shadow) are
 * counted as enforced ones would be — in buckets of their own, all of the request's shadow
 * buckets or none, token buckets moved to the tokens used at settle — but never refuse: a
 * request an enforced rule would have refused is admitted, and `rate_limit:<rule id>` goes to
 * the record's `would_block`. Runs beside admission (its own store call, started at once, so
 * it adds no wait on a shared store); a store that cannot answer leaves it uncounted.
 */
export function countShadowRate(input: AdmissionInput): Promise<void> {
  const { policy, ctx } = input;
  if (policy === null || !hasShadowRate(policy)) return DONE;
  const rate = decideRate({ policy, registry: input.registry, principal: input.principal, model: input.model, tokens: input.tokenBound });
  // A substitute's admission counts only the shadow buckets the requested model's did not.
  const hit = (ctx.shadowRateKeys ??= []);
  const shadow = input.substituted === true ? rate.shadowConstraints.filter((c) => !hit.includes(c.key)) : rate.shadowConstraints;
  if (shadow.length === 0) return DONE;
  for (const c of shadow) hit.push(c.key);
  const tag = keyTag(input.principal, input.tenantOf) + SHADOW_RATE_PREFIX;
  const buckets: RateBucket[] = shadow.map((c) => ({ key: tag + c.key, limit: c.limit, windowMs: c.windowMs, cost: c.amount ?? 1 }));
  return (async () => input.store.hitRate(buckets))().then(
    (result) => {
      if (!result.ok) {
        const refused = shadow.find((c) => tag + c.key === result.key);
        const reason = refused?.reason ?? 'rate_limit';
        if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
        return;
      }
      const windows = result.windows;
      if (windows === undefined) return;
      shadow.forEach((c, i) => {
        const start = windows[i];
        if (c.kind === 'tokens' && start !== undefined) ctx.tokenBuckets.push({ key: buckets[i]!.key, windowMs: c.windowMs, start, amount: buckets[i]!.cost });
      });
    },
    () => {},
  );
}
