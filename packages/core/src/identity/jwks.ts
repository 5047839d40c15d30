/**
 * Key sets for JWT verification: inline JWKS, or a JWKS URL fetched through an injectable
 * `fetch`, cached per URL, refetched on an unknown `kid` at most once per cool-down. jose is
 * passed in by the JWT verifier, which loads it on first use (./jose.ts): only types here.
 */
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { Lru } from '../util/lru.js';

/** The subset of `fetch` used for JWKS retrieval; `globalThis.fetch` fits. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface JwksOptions {
  /** Used for `jwks_url`; defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Minimum time between refetches caused by an unknown `kid`. Default 30 s. */
  jwksCooldownMs?: number;
  /** Keys are refetched after this age. Default 10 min. */
  jwksMaxAgeMs?: number;
  /** Timeout of one JWKS fetch. Default 5 s. */
  jwksTimeoutMs?: number;
  /** After a failed fetch, no new fetch is tried for this long (requests fail closed). Default 5 s. */
  jwksFailureBackoffMs?: number;
}

/** A JWKS could not be obtained: verification cannot complete (fail closed, not "invalid"). */
export class JwksUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwksUnavailableError';
  }
}

const MAX_JWKS_BYTES = 1 << 20;

export interface JwksProvider {
  /** The key resolver for a JWKS URL; one per URL, shared by config entries. */
  remote(url: string): JWTVerifyGetKey;
  /** The key resolver for an inline JWKS. */
  local(jwks: JSONWebKeySet): JWTVerifyGetKey;
}

/** The parts of jose the JWT path uses, loaded with `import('./jose.js')` by the JWT verifier. */
export type Jose = typeof import('./jose.js');

export function createJwksProvider(jose: Jose, options: JwksOptions = {}): JwksProvider {
  const { createLocalJWKSet, createRemoteJWKSet, customFetch } = jose;
  const sets = new Lru<string, JWTVerifyGetKey>(64);
  return {
    remote(url) {
      let set = sets.get(url);
      if (set === undefined) {
        set = createRemoteJWKSet(new URL(url), {
          cooldownDuration: options.jwksCooldownMs ?? 30_000,
          cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
          timeoutDuration: options.jwksTimeoutMs ?? 5_000,
          [customFetch]: guardedFetch(options.fetch, options.jwksFailureBackoffMs ?? 5_000),
        });
        sets.set(url, set);
      }
      return set;
    },
    local(jwks) {
      return createLocalJWKSet(jwks);
    },
  };
}

/**
 * Wraps fetch so that every failure (network, non-200, oversized, not a JWKS) is reported as
 * {@link JwksUnavailableError} and starts a back-off: an unreachable IdP is not hammered.
 */
function guardedFetch(f: FetchLike | undefined, backoffMs: number): FetchLike {
  let failedUntil = 0;
  return async (url, init) => {
    if (Date.now() < failedUntil) throw new JwksUnavailableError('JWKS fetch backing off after a failure');
    try {
      const impl = f ?? ((u: string, i: RequestInit) => globalThis.fetch(u, i));
      const res = await impl(url, init);
      if (res.status !== 200) throw new JwksUnavailableError(`JWKS endpoint answered ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_JWKS_BYTES) throw new JwksUnavailableError('JWKS response too large');
      const json: unknown = JSON.parse(text);
      if (typeof json !== 'object' || json === null || !Array.isArray((json as { keys?: unknown }).keys)) {
        throw new JwksUnavailableError('JWKS response is not a key set');
      }
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (err) {
      failedUntil = Date.now() + backoffMs;
      throw err instanceof JwksUnavailableError ? err : new JwksUnavailableError(`JWKS fetch failed: ${errorName(err)}`);
    }
  };
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
