/**
 * JWT claims → Principal. Claims the config names are read; anything else in the token is
 * ignored. Platform tags are allow-listed and size-bounded, and never authority: they land in
 * `principal.tags` only, never in tier, bu or leaders.
 */
import type { JWTPayload } from 'jose';
import type { Principal } from '@tollgate/policy';
import type { JwtEntry } from './schema.js';

export const MAX_TAGS = 16;
export const MAX_TAG_VALUE_LENGTH = 64;
const MAX_CLAIM_LENGTH = 256;
const MAX_LEADERS = 64;

/** A principal, or the (internal, loggable) reason the claims were unusable. */
export type ClaimsResult = { ok: true; principal: Principal } | { ok: false; detail: string };

export function principalFromClaims(entry: JwtEntry, payload: JWTPayload): ClaimsResult {
  const c = entry.claims ?? {};
  const user = str(payload, c.user ?? 'sub');
  if (user === undefined || user === null) return { ok: false, detail: `jwt: claim ${c.user ?? 'sub'} missing or malformed` };

  // The issuer namespaces the principal's counters: `alice` of two IdPs are two people.
  const principal: Principal = { kind: 'user', id: user, issuer: entry.issuer };
  for (const field of ['tier', 'team', 'bu', 'application', 'workflow'] as const) {
    const name = c[field];
    if (name === undefined) continue;
    const v = str(payload, name);
    if (v === null) return { ok: false, detail: `jwt: claim ${name} malformed` };
    if (v !== undefined) principal[field] = v;
  }
  if (c.leaders !== undefined) {
    const v = strList(payload, c.leaders);
    if (v === null) return { ok: false, detail: `jwt: claim ${c.leaders} malformed` };
    if (v !== undefined) principal.leaders = v;
  }
  if (entry.platform !== undefined) {
    principal.platform = entry.platform;
    const tags = pickTags(readClaim(payload, entry.tags_claim ?? 'tags'), entry.allowed_tags ?? []);
    if (tags !== undefined) principal.tags = tags;
  } else if (c.platform !== undefined) {
    const v = str(payload, c.platform);
    if (v === null) return { ok: false, detail: `jwt: claim ${c.platform} malformed` };
    if (v !== undefined) principal.platform = v;
  }
  return { ok: true, principal };
}

/**
 * Keeps only allow-listed tag names with short string values, at most {@link MAX_TAGS}.
 * Anything else is dropped silently: tags are attribution, so dropping one is always safe.
 */
export function pickTags(raw: unknown, allowed: readonly string[]): Record<string, string> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || allowed.length === 0) return undefined;
  const allow = new Set(allowed);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let n = 0;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (n >= MAX_TAGS) break;
    if (!allow.has(k) || typeof v !== 'string' || v.length === 0 || v.length > MAX_TAG_VALUE_LENGTH) continue;
    out[k] = v;
    n++;
  }
  return n === 0 ? undefined : { ...out };
}

/** A claim by exact name, else by dotted path (`realm.tier`). */
function readClaim(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  if (!name.includes('.')) return undefined;
  let cur: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** undefined: absent; null: present but not a usable string. */
function str(payload: JWTPayload, name: string): string | undefined | null {
  const v = readClaim(payload, name);
  if (v === undefined) return undefined;
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_CLAIM_LENGTH ? v : null;
}

function strList(payload: JWTPayload, name: string): string[] | undefined | null {
  const v = readClaim(payload, name);
  if (v === undefined) return undefined;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.length > MAX_LEADERS) return null;
  for (const x of list) if (typeof x !== 'string' || x.length === 0 || x.length > MAX_CLAIM_LENGTH) return null;
  return list as string[];
}
