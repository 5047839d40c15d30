import { keySegment, principalKey, windowKeys, type Principal } from '@tollgate/policy';

/**
 * The tenant whose hash tag a principal's store keys carry (`GatewayOptions.tenantOf`). With
 * one, every key of the principal starts with `{<tenant>}:`, so a Redis store created with
 * `hashTag: hashTagFromKey()` keeps each tenant's keys in one Cluster slot (one atomic script
 * per request, pooled caps of the same tenant included) and spreads tenants over slots.
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
 * key (`principalKey(p)`: kind, a JWT principal's issuer, id), so principals of different
 * kinds or issuers never share a counter: `c:user:alice:2026-11:claude-sonnet`.
 */
export function counterKey(principal: string, windowKey: string, model: string): string {
  return `c:${principal}:${windowKey}:${model}`;
}

/** Every counter a request's cost is charged to: c(principal, model, w) for every window, under `tag`. */
export function chargeKeys(tag: string, principal: Principal, model: string, now: number, timezone: string): string[] {
  const pkey = principalKey(principal);
  const keys = windowKeys(now, timezone);
  return Object.values(keys).map((wk) => tag + counterKey(pkey, wk, model));
}
