/**
 * `createIdentityResolver`: Request → Principal. Reads the credential only where vendor SDKs
 * send it, then tries, by shape: a JWT (three segments) against the `jwt` entries, or a
 * `tg_` key by its SHA-256 against `virtual_keys`, `applications`, then the lookup function.
 */
import { GatewayError } from '@tollgate/codecs/base';
import { extractCredential } from './credentials.js';
import type { HeaderReader } from '../gateway/request.js';
import type { JwtEngine, JwtVerifier } from './jwt.js';
import { isJwtShape } from './jwt-shape.js';
import type { JwksOptions } from './jwks.js';
import type { Principal } from '@tollgate/policy';
import { parseIdentityConfig, type IdentityConfigInput } from './runtime-schema.js';
import { sha256 } from '../util/sha256.js';
import { constantTimeEqual, hashBytes, isVirtualKeyShape, toHex } from './virtual-key.js';

/** Resolves a key hash (`sha256:<hex>`) to a principal; `null` when unknown or revoked. */
export type IdentityLookup = (keyHash: string) => Principal | null | Promise<Principal | null>;

/** `options.identity`: the config section, a lookup function, or both. */
export type IdentityOptions = IdentityLookup | (IdentityConfigInput & { lookup?: IdentityLookup });

export type AuthMethod = 'virtual_key' | 'jwt' | 'application' | 'lookup';

export type AuthResult = { ok: true; principal: Principal; method: AuthMethod; keyHash?: string } | { ok: false; error: GatewayError };

/** Injectable fetch and JWKS timings (cool-down, max age, timeout, failure back-off), and the JWT engine. */
export interface IdentityResolverOptions extends JwksOptions {
  /**
   * Verifies the `jwt` entries' tokens: `jwtEngine` of `@tollgate/core/jwt`. The
   * `createIdentityResolver` of `@tollgate/core` uses it by default; the one of
   * `@tollgate/core/minimal` refuses `jwt` entries without it.
   */
  jwtEngine?: JwtEngine;
}

/** Said when `jwt` entries are configured and no JWT engine was given (the minimal entry). */
export const NO_JWT_ENGINE =
  "jwt: these entries need the JWT engine here: pass jwt: { engine: jwtEngine } to the gateway (jwtEngine: jwtEngine to createIdentityResolver; import { jwtEngine } from '@tollgate/core/jwt'), or use '@tollgate/core'";

export interface IdentityResolver {
  authenticate(request: { headers: HeaderReader; url: string }): Promise<AuthResult>;
}

interface KeyRecord {
  bytes: Uint8Array;
  principal: Principal;
  method: 'virtual_key' | 'application';
}

const MISSING = 'Missing API key. Send it as "Authorization: Bearer <key>", "x-api-key", "x-goog-api-key" or the "key" query parameter.';
const INVALID = 'Invalid API key or token.';
const UNAVAILABLE = 'Authentication is temporarily unavailable. Try again shortly.';

const fail = (message: string, detail: string): AuthResult => ({
  ok: false,
  error: new GatewayError('authentication_failed', message, { detail }),
});
const unavailable = (detail: string): AuthResult => ({
  ok: false,
  error: new GatewayError('unavailable', UNAVAILABLE, { detail }),
});

/** Validates the config (throws listing every violation) and returns the authenticator. */
export function createIdentityResolver(identity: IdentityOptions, options: IdentityResolverOptions = {}): IdentityResolver {
  const { lookup, config } = split(identity);
  const parsed = parseIdentityConfig(config);

  const keys = new Map<string, KeyRecord>();
  for (const k of parsed.virtual_keys ?? []) {
    const { user, leaders, ...rest } = k.principal;
    const principal: Principal = { kind: 'user', id: user, ...rest };
    if (leaders !== undefined) principal.leaders = Object.freeze([...leaders]);
    keys.set(k.hash, { bytes: hashBytes(k.hash), principal: Object.freeze(principal), method: 'virtual_key' });
  }
  for (const a of parsed.applications ?? []) {
    const principal: Principal = { kind: 'application', id: a.id, application: a.id };
    if (a.bu !== undefined) principal.bu = a.bu;
    if (a.tier !== undefined) principal.tier = a.tier;
    if (a.team !== undefined) principal.team = a.team;
    keys.set(a.hash, { bytes: hashBytes(a.hash), principal: Object.freeze(principal), method: 'application' });
  }
  // A configured key's secret, once hashed and matched, → its hash and record, so a key in use
  // is not hashed again on every request. Only secrets that matched a configured key are kept
  // (at most one per key: unknown keys can never fill it); a reload makes a new resolver.
  const matched = new Map<string, { keyHash: string; rec: KeyRecord }>();
  let jwt: JwtVerifier | null = null;
  if (parsed.jwt?.length) {
    const { jwtEngine, ...jwks } = options;
    if (jwtEngine === undefined) throw new Error(NO_JWT_ENGINE);
    jwt = jwtEngine(parsed.jwt, jwks);
  }

  return {
    async authenticate(request) {
      const cred = extractCredential(request);
      if (!cred.ok) return cred.reason === 'missing' ? fail(MISSING, 'credential: missing') : fail(INVALID, 'credential: malformed');
      const secret = cred.secret;

      if (isJwtShape(secret)) {
        if (jwt === null) return fail(INVALID, 'jwt: not configured');
        const r = await jwt.verify(secret);
        if (r.ok) return { ok: true, principal: r.principal, method: 'jwt' };
        return r.reason === 'unavailable' ? unavailable(r.detail) : fail(INVALID, r.detail);
      }
      if (!isVirtualKeyShape(secret)) return fail(INVALID, 'key: not a tollgate key');

      const known = matched.get(secret);
      if (known !== undefined) return { ok: true, principal: known.rec.principal, method: known.rec.method, keyHash: known.keyHash };
      // Synchronous: a key is one or two blocks, and no await means no extra turn per request.
      const bytes = sha256(secret);
      const keyHash = 'sha256:' + toHex(bytes);
      const rec = keys.get(keyHash);
      if (rec !== undefined && constantTimeEqual(rec.bytes, bytes)) {
        if (matched.size < keys.size) matched.set(secret, { keyHash, rec });
        return { ok: true, principal: rec.principal, method: rec.method, keyHash };
      }
      if (lookup !== undefined) {
        let principal: Principal | null;
        try {
          principal = await lookup(keyHash);
        } catch (err) {
          return unavailable(`lookup: threw ${err instanceof Error ? err.name : typeof err}`);
        }
        if (principal !== null && principal !== undefined) {
          if (!isPrincipal(principal)) return unavailable('lookup: returned an invalid principal');
          // A copy of the request's own: the gateway keeps decisions per principal object, and
          // a lookup may hand out an object from its own cache that it later changes in place.
          return { ok: true, principal: snapshot(principal), method: 'lookup', keyHash };
        }
      }
      return fail(INVALID, 'key: unknown');
    },
  };
}

function snapshot(p: Principal): Principal {
  const copy: Principal = { ...p };
  if (p.leaders !== undefined) copy.leaders = Object.freeze([...p.leaders]);
  if (p.tags !== undefined) copy.tags = Object.freeze({ ...p.tags });
  return Object.freeze(copy);
}

function split(identity: IdentityOptions): { lookup: IdentityLookup | undefined; config: IdentityConfigInput } {
  if (typeof identity === 'function') return { lookup: identity, config: {} };
  if ('lookup' in identity) {
    const { lookup, ...config } = identity;
    if (lookup !== undefined && typeof lookup !== 'function') throw new TypeError('identity.lookup must be a function');
    return { lookup, config };
  }
  return { lookup: undefined, config: identity };
}

const KINDS = new Set(['user', 'application', 'service']);

function isPrincipal(p: unknown): p is Principal {
  if (typeof p !== 'object' || p === null) return false;
  const { kind, id, issuer } = p as { kind?: unknown; id?: unknown; issuer?: unknown };
  return typeof kind === 'string' && KINDS.has(kind) && typeof id === 'string' && id.length > 0 && (issuer === undefined || typeof issuer === 'string');
}
