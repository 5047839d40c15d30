/**
 * Offline JWT verification with jose: issuer, audience, exp (required), nbf, an asymmetric
 * algorithm allow-list and the entry's key set. A token names its issuer; only the config
 * entries for that issuer are tried.
 *
 * jose is loaded with a dynamic `import()` on the first token (./jose.ts), so a deployment
 * without `jwt` entries never evaluates it, and a bundler that splits dynamic imports keeps it
 * out of the main chunk.
 */
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { principalFromClaims } from './claims.js';
import { createJwksProvider, JwksUnavailableError, type Jose, type JwksOptions } from './jwks.js';
import type { Principal } from '@tollgate/policy';
import { DEFAULT_JWT_ALGORITHMS, type JwtEntry } from './runtime-schema.js';

export { isJwtShape } from './jwt-shape.js';

export type JwtOutcome =
  | { ok: true; principal: Principal }
  /** `invalid`: the token is not acceptable; `unavailable`: verification could not complete. */
  | { ok: false; reason: 'invalid' | 'unavailable'; detail: string };

export interface JwtVerifier {
  verify(token: string): Promise<JwtOutcome>;
}

/**
 * Makes the verifier of a gateway's `identity.jwt` entries: `jwtEngine` of `@tollgate/core/jwt`
 * (jose, loaded on the first token). `@tollgate/core` uses it by default; `@tollgate/core/minimal`
 * refuses `jwt` entries without it, so a bundle that verifies no JWT carries none of jose.
 */
export type JwtEngine = (entries: readonly JwtEntry[], options: JwksOptions) => JwtVerifier;

interface Compiled {
  entry: JwtEntry;
  key: JWTVerifyGetKey;
  algorithms: string[];
}

interface Loaded {
  jose: Jose;
  byIssuer: Map<string, Compiled[]>;
}

export function createJwtVerifier(entries: readonly JwtEntry[], options: JwksOptions = {}): JwtVerifier {
  let loading: Promise<Loaded> | undefined;
  /** jose and the compiled entries, once; a failed load is retried on the next token. */
  const load = () =>
    (loading ??= import('./jose.js').then(
      (jose) => ({ jose, byIssuer: compile(jose, entries, options) }),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));

  return {
    async verify(token) {
      let loaded: Loaded;
      try {
        loaded = await load();
      } catch (err) {
        return { ok: false, reason: 'unavailable', detail: `jwt: setup failed (${err instanceof Error ? err.name : typeof err})` };
      }
      const { jose, byIssuer } = loaded;
      let iss: unknown;
      try {
        iss = jose.decodeJwt(token).iss;
      } catch {
        return { ok: false, reason: 'invalid', detail: 'jwt: undecodable' };
      }
      const candidates = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
      if (candidates === undefined) return { ok: false, reason: 'invalid', detail: 'jwt: unknown issuer' };

      let last: JwtOutcome = { ok: false, reason: 'invalid', detail: 'jwt: no entry' };
      for (const c of candidates) {
        const outcome = await verifyOne(jose, token, c);
        if (outcome.ok) return outcome;
        // An unavailable key set outranks "invalid": the token may be fine.
        if (last.ok === false && last.reason !== 'unavailable') last = outcome;
      }
      return last;
    },
  };
}

function compile(jose: Jose, entries: readonly JwtEntry[], options: JwksOptions): Map<string, Compiled[]> {
  const jwks = createJwksProvider(jose, options);
  const byIssuer = new Map<string, Compiled[]>();
  for (const entry of entries) {
    const key = entry.jwks_url !== undefined ? jwks.remote(entry.jwks_url) : jwks.local(entry.jwks as JSONWebKeySet);
    const list = byIssuer.get(entry.issuer) ?? [];
    list.push({ entry, key, algorithms: [...(entry.algorithms ?? DEFAULT_JWT_ALGORITHMS)] });
    byIssuer.set(entry.issuer, list);
  }
  return byIssuer;
}

async function verifyOne(jose: Jose, token: string, c: Compiled): Promise<JwtOutcome> {
  let payload;
  try {
    ({ payload } = await jose.jwtVerify(token, c.key, {
      issuer: c.entry.issuer,
      audience: c.entry.audience,
      algorithms: c.algorithms,
      clockTolerance: c.entry.clock_tolerance_s ?? 0,
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    return classify(jose, err);
  }
  const r = principalFromClaims(c.entry, payload);
  return r.ok ? r : { ok: false, reason: 'invalid', detail: r.detail };
}

const UNAVAILABLE_CODES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

function classify(jose: Jose, err: unknown): JwtOutcome {
  if (err instanceof JwksUnavailableError) return { ok: false, reason: 'unavailable', detail: `jwt: ${err.message}` };
  if (err instanceof jose.errors.JOSEError) {
    const reason = UNAVAILABLE_CODES.has(err.code) ? 'unavailable' : 'invalid';
    return { ok: false, reason, detail: `jwt: ${err.code}` };
  }
  return { ok: false, reason: 'unavailable', detail: `jwt: ${err instanceof Error ? err.name : 'error'}` };
}

/** The JWT engine (`jwt.engine` of the gateway options, `jwtEngine` of `createIdentityResolver`). */
export const jwtEngine: JwtEngine = createJwtVerifier;
