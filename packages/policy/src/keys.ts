/**
 * How state-store keys name whose state they hold. Every counter, hold (cap) and rate-bucket
 * key carries a *principal key*:
 *
 *   <kind>:<id>              user:alice, application:alice, service:indexer
 *   <kind>@<issuer>:<id>     user@https%3A//idp.example.com/:alice   (a JWT principal)
 *
 * so an application `alice` and a user `alice`, or two identity providers that both issue a
 * subject `alice`, never share a counter. Later pools (team, business unit, organisation) use
 * the same grammar with their own kind (`team:search`). Each segment is escaped so no value
 * can forge a separator or a Redis Cluster hash tag: `%`, `:`, `@`, `{` and `}` become `%XX`.
 */
import type { Principal } from './principal.js';

const UNSAFE = /[%:@{}]/;
const UNSAFE_ALL = /[%:@{}]/g;

const escapeChar = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** One key segment: the value itself, or with `%`, `:`, `@`, `{` and `}` percent-escaped. */
export function keySegment(value: string): string {
  return UNSAFE.test(value) ? value.replace(UNSAFE_ALL, escapeChar) : value;
}

const memo = new WeakMap<Principal, string>();

/** The principal key (`<kind>[@<issuer>]:<id>`) of a principal, memoised per principal object. */
export function principalKey(p: Principal): string {
  let key = memo.get(p);
  if (key === undefined) {
    const issuer = p.issuer;
    key = `${p.kind}${issuer === undefined || issuer === '' ? '' : `@${keySegment(issuer)}`}:${keySegment(p.id)}`;
    memo.set(p, key);
  }
  return key;
}

/**
 * Whose counter a budget or limit compares with (`match.per` of a spend entry, `per` of a rate
 * limit): the principal itself (`user`, the default), or a *pool* the principal belongs to —
 * its team, business unit, application, workflow or platform, or the whole organisation.
 */
export type SpendPer = 'user' | 'team' | 'bu' | 'application' | 'workflow' | 'platform' | 'org';

/** Every `per`, in a fixed order (the index is a pool's slot). */
export const SPEND_PERS: readonly SpendPer[] = ['user', 'team', 'bu', 'application', 'workflow', 'platform', 'org'];

/**
 * The kind a pool's key starts with. Pools have kinds of their own, apart from principals'
 * (`user`, `application`, `service`), so a pool never shares a counter with a principal: the
 * application pool is `app:<name>`, not the application principal's own `application:<name>`.
 */
const POOL_KIND: Record<Exclude<SpendPer, 'user' | 'org'>, string> = {
  team: 'team',
  bu: 'bu',
  application: 'app',
  workflow: 'workflow',
  platform: 'platform',
};

/** The organisation pool's key: one pool for everyone an entry matches (per tenant). */
export const ORG_POOL = 'org';

/**
 * The name of the pool `per` of principal `p`: its id (`user`), its team, BU, application (the
 * application it acts through, or its own id for an application key), workflow or platform,
 * `org` for the organisation; undefined when `p` lacks the attribute (it is in no such pool,
 * and an entry pooled that way does not cover it).
 */
export function poolName(p: Principal, per: SpendPer): string | undefined {
  switch (per) {
    case 'user':
      return p.id;
    case 'team':
      return nonEmpty(p.team);
    case 'bu':
      return nonEmpty(p.bu);
    case 'application':
      return nonEmpty(p.application) ?? (p.kind === 'application' ? p.id : undefined);
    case 'workflow':
      return nonEmpty(p.workflow);
    case 'platform':
      return nonEmpty(p.platform);
    case 'org':
      return ORG_POOL;
  }
}

const nonEmpty = (s: string | null | undefined): string | undefined => (typeof s === 'string' && s !== '' ? s : undefined);

const pools = new WeakMap<Principal, readonly (string | null)[]>();
const names = new WeakMap<Principal, readonly (string | undefined)[]>();

/** `poolName(p, per)` for every `per`, in `SPEND_PERS` order (memoised per principal object). */
export function poolNames(p: Principal): readonly (string | undefined)[] {
  let out = names.get(p);
  if (out === undefined) {
    out = Object.freeze(SPEND_PERS.map((per) => poolName(p, per)));
    names.set(p, out);
  }
  return out;
}

/**
 * The key of pool `per` of `p` (`team:search`, `bu:payments`, `app:crm`, `workflow:etl`,
 * `platform:portal`, `org`; for `user`, `principalKey(p)`), or null when `p` is in no such
 * pool. Memoised per principal object.
 */
export function poolKey(p: Principal, per: SpendPer): string | null {
  return poolKeys(p)[SPEND_PERS.indexOf(per)] as string | null;
}

/** `poolKey(p, per)` for every `per`, in `SPEND_PERS` order (memoised per principal object). */
export function poolKeys(p: Principal): readonly (string | null)[] {
  let keys = pools.get(p);
  if (keys === undefined) {
    keys = Object.freeze(
      SPEND_PERS.map((per) => {
        if (per === 'user') return principalKey(p);
        if (per === 'org') return ORG_POOL;
        const name = poolName(p, per);
        return name === undefined ? null : `${POOL_KIND[per]}:${keySegment(name)}`;
      }),
    );
    pools.set(p, keys);
  }
  return keys;
}
