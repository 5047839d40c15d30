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
