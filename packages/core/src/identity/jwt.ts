/**
 * Offline JWT verification with jose: issuer, audience, exp (required), nbf, an asymmetric
 * algorithm allow-list and the entry's key set. A token names its issuer; only the config
 * entries for that issuer are tried.
 */
import { decodeJwt, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { principalFromClaims } from './claims.js';
import { createJwksProvider, JwksUnavailableError, type JwksOptions } from './jwks.js';
import type { Principal } from '@tollgate/policy';
import { DEFAULT_JWT_ALGORITHMS, type JwtEntry } from './schema.js';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A token is treated as a JWT when it has three base64url segments. */
export function isJwtShape(token: string): boolean {
  return JWT_SHAPE.test(token);
}

export type JwtOutcome =
  | { ok: true; principal: Principal }
  /** `invalid`: the token is not acceptable; `unavailable`: verification could not complete. */
  | { ok: false; reason: 'invalid' | 'unavailable'; detail: string };

export interface JwtVerifier {
  verify(token: string): Promise<JwtOutcome>;
}

interface Compiled {
  entry: JwtEntry;
  key: JWTVerifyGetKey;
  algorithms: string[];
}

export function createJwtVerifier(entries: readonly JwtEntry[], options: JwksOptions = {}): JwtVerifier {
  const jwks = createJwksProvider(options);
  const byIssuer = new Map<string, Compiled[]>();
  for (const entry of entries) {
    const key = entry.jwks_url !== undefined ? jwks.remote(entry.jwks_url) : jwks.local(entry.jwks as JSONWebKeySet);
    const list = byIssuer.get(entry.issuer) ?? [];
    list.push({ entry, key, algorithms: [...(entry.algorithms ?? DEFAULT_JWT_ALGORITHMS)] });
    byIssuer.set(entry.issuer, list);
  }

  return {
    async verify(token) {
      let iss: unknown;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        return { ok: false, reason: 'invalid', detail: 'jwt: undecodable' };
      }
      const candidates = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
      if (candidates === undefined) return { ok: false, reason: 'invalid', detail: 'jwt: unknown issuer' };

      let last: JwtOutcome = { ok: false, reason: 'invalid', detail: 'jwt: no entry' };
      for (const c of candidates) {
        const outcome = await verifyOne(token, c);
        if (outcome.ok) return outcome;
        // An unavailable key set outranks "invalid": the token may be fine.
        if (last.ok === false && last.reason !== 'unavailable') last = outcome;
      }
      return last;
    },
  };
}

async function verifyOne(token: string, c: Compiled): Promise<JwtOutcome> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, c.key, {
      issuer: c.entry.issuer,
      audience: c.entry.audience,
      algorithms: c.algorithms,
      clockTolerance: c.entry.clock_tolerance_s ?? 0,
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    return classify(err);
  }
  const r = principalFromClaims(c.entry, payload);
  return r.ok ? r : { ok: false, reason: 'invalid', detail: r.detail };
}

const UNAVAILABLE_CODES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

function classify(err: unknown): JwtOutcome {
  if (err instanceof JwksUnavailableError) return { ok: false, reason: 'unavailable', detail: `jwt: ${err.message}` };
  if (err instanceof errors.JOSEError) {
    const reason = UNAVAILABLE_CODES.has(err.code) ? 'unavailable' : 'invalid';
    return { ok: false, reason, detail: `jwt: ${err.code}` };
  }
  return { ok: false, reason: 'unavailable', detail: `jwt: ${err instanceof Error ? err.name : 'error'}` };
}
