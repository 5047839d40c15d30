import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SignJWT, exportSPKI } from 'jose';
import type { AuthResult } from './resolver.js';
import { createIdentityResolver } from './with-jwt.js';
import { AUDIENCE, ISSUER, JWKS_URL, b64url, bearer, fakeJwksServer, makeKey, sign } from './__tests__/fixtures.js';

const entry = { issuer: ISSUER, audience: AUDIENCE, jwks_url: JWKS_URL };

/** A generic 401; `detail` (internal, never rendered) pins down which check fired. */
function expect401(r: AuthResult, detail?: string) {
  expect(r.ok).toBe(false);
  if (!r.ok) {
    expect(r.error.code).toBe('authentication_failed');
    expect(r.error.status).toBe(401);
    expect(r.error.message).toBe('Invalid API key or token.');
    if (detail !== undefined) expect(r.error.detail).toBe(detail);
  }
}

describe('identity: JWT via a JWKS URL', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('verifies offline, caches the JWKS, refetches on an unknown kid with a cool-down', async () => {
    const a = await makeKey('a');
    const b = await makeKey('b', 'ES256');
    const c = await makeKey('c');
    const server = fakeJwksServer([a.publicJwk]);
    const resolver = createIdentityResolver({ jwt: [entry] }, { fetch: server.fetch });

    const first = await resolver.authenticate(bearer(await sign(a)));
    expect(first).toEqual({ ok: true, method: 'jwt', principal: { kind: 'user', id: 'alice', issuer: ISSUER } });
    expect(server.state.fetches).toBe(1);
    expect(server.state.urls).toEqual([JWKS_URL]);
    await resolver.authenticate(bearer(await sign(a, { sub: 'bob' })));
    expect(server.state.fetches).toBe(1); // cached

    server.state.keys = [a.publicJwk, b.publicJwk]; // the IdP rotates in key b
    vi.setSystemTime(Date.now() + 10_000);
    expect401(await resolver.authenticate(bearer(await sign(b)))); // within the cool-down: no refetch
    expect(server.state.fetches).toBe(1);

    vi.setSystemTime(Date.now() + 21_000);
    const rotated = await resolver.authenticate(bearer(await sign(b)));
    expect(rotated.ok).toBe(true);
    expect(server.state.fetches).toBe(2); // exactly one refetch

    // Unknown kids cannot make the gateway hammer the IdP.
    for (let i = 0; i < 5; i++) expect401(await resolver.authenticate(bearer(await sign(c))));
    expect(server.state.fetches).toBe(2);
    vi.setSystemTime(Date.now() + 31_000);
    expect401(await resolver.authenticate(bearer(await sign(c))));
    expect401(await resolver.authenticate(bearer(await sign(c))));
    expect(server.state.fetches).toBe(3);
  });

  it('fetches once for a burst of concurrent first requests', async () => {
    const a = await makeKey('a');
    const server = fakeJwksServer([a.publicJwk]);
    const resolver = createIdentityResolver({ jwt: [entry] }, { fetch: server.fetch });
    const token = await sign(a);
    const results = await Promise.all(Array.from({ length: 20 }, () => resolver.authenticate(bearer(token))));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(server.state.fetches).toBe(1);
  });

  it('shares one cached key set between entries with the same URL', async () => {
    const a = await makeKey('a');
    const server = fakeJwksServer([a.publicJwk]);
    const resolver = createIdentityResolver({ jwt: [entry, { ...entry, issuer: 'https://other.example.com' }] }, { fetch: server.fetch });
    expect((await resolver.authenticate(bearer(await sign(a)))).ok).toBe(true);
    expect((await resolver.authenticate(bearer(await sign(a, { iss: 'https://other.example.com' })))).ok).toBe(true);
    expect(server.state.fetches).toBe(1);
  });

  it('fails closed with 503 while the JWKS is unreachable, and backs off', async () => {
    const a = await makeKey('a');
    const server = fakeJwksServer([a.publicJwk]);
    server.state.status = 500;
    const resolver = createIdentityResolver({ jwt: [entry] }, { fetch: server.fetch });
    const token = await sign(a);
    const r = await resolver.authenticate(bearer(token));
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.code, r.error.status]).toEqual(['unavailable', 503]);
    await resolver.authenticate(bearer(token));
    expect(server.state.fetches).toBe(1); // backing off
    server.state.status = 200;
    vi.setSystemTime(Date.now() + 6_000);
    expect((await resolver.authenticate(bearer(token))).ok).toBe(true);
    expect(server.state.fetches).toBe(2);
  });
});

describe('identity: JWT rejections', () => {
  async function setup() {
    const a = await makeKey('a');
    const server = fakeJwksServer([a.publicJwk]);
    const resolver = createIdentityResolver({ jwt: [{ ...entry, clock_tolerance_s: 5 }] }, { fetch: server.fetch });
    return { a, resolver, server };
  }

  it('refuses expired, not-yet-valid, wrong audience, wrong issuer and exp-less tokens', async () => {
    const { a, resolver } = await setup();
    const now = Math.floor(Date.now() / 1000);
    expect401(await resolver.authenticate(bearer(await sign(a, {}, { exp: now - 60 }))), 'jwt: ERR_JWT_EXPIRED');
    expect401(await resolver.authenticate(bearer(await sign(a, { nbf: now + 3600 }))), 'jwt: ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect401(await resolver.authenticate(bearer(await sign(a, { aud: 'someone-else' }))), 'jwt: ERR_JWT_CLAIM_VALIDATION_FAILED');
    expect401(await resolver.authenticate(bearer(await sign(a, { iss: 'https://evil.example.com' }))), 'jwt: unknown issuer');
    const noExp = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'RS256', kid: 'a' }).setIssuer(ISSUER).setAudience(AUDIENCE).sign(a.privateKey);
    expect401(await resolver.authenticate(bearer(noExp)), 'jwt: ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it('accepts a token just past exp within clock_tolerance_s', async () => {
    const { a, resolver } = await setup();
    const r = await resolver.authenticate(bearer(await sign(a, {}, { exp: Math.floor(Date.now() / 1000) - 2 })));
    expect(r.ok).toBe(true);
  });

  it('refuses alg none', async () => {
    const { resolver } = await setup();
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: 'admin', iss: ISSUER, aud: AUDIENCE, exp: now + 300 };
    expect401(await resolver.authenticate(bearer(`${b64url({ alg: 'none', kid: 'a' })}.${b64url(payload)}.`)), 'jwt: ERR_JOSE_ALG_NOT_ALLOWED');
    expect401(await resolver.authenticate(bearer(`${b64url({ alg: 'none' })}.${b64url(payload)}.sig`)), 'jwt: ERR_JOSE_ALG_NOT_ALLOWED');
  });

  it('refuses HS256 signed with the public key as the HMAC secret (HS/RS confusion)', async () => {
    const { a, resolver } = await setup();
    const secrets = [
      new TextEncoder().encode(await exportSPKI(a.publicKey)),
      new TextEncoder().encode(JSON.stringify(a.publicJwk)),
      new TextEncoder().encode(String(a.publicJwk.n)),
    ];
    for (const secret of secrets) {
      const forged = await new SignJWT({ sub: 'admin' })
        .setProtectedHeader({ alg: 'HS256', kid: 'a' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(secret);
      expect401(await resolver.authenticate(bearer(forged)), 'jwt: ERR_JOSE_ALG_NOT_ALLOWED');
    }
  });

  it('refuses a valid signature from a key outside the JWKS, and tampered payloads', async () => {
    const { resolver } = await setup();
    const rogue = await makeKey('a'); // same kid, different key
    expect401(await resolver.authenticate(bearer(await sign(rogue))), 'jwt: ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const good = await sign((await setup()).a);
    const [h, , s] = good.split('.');
    const tampered = `${h}.${b64url({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, exp: 4102444800 })}.${s}`;
    expect401(await resolver.authenticate(bearer(tampered)), 'jwt: ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('refuses an algorithm outside the entry allow-list', async () => {
    const es = await makeKey('e', 'ES384');
    const server = fakeJwksServer([es.publicJwk]);
    const resolver = createIdentityResolver({ jwt: [entry] }, { fetch: server.fetch }); // default list lacks ES384
    expect401(await resolver.authenticate(bearer(await sign(es))), 'jwt: ERR_JOSE_ALG_NOT_ALLOWED');
    const allowing = createIdentityResolver({ jwt: [{ ...entry, algorithms: ['ES384'] }] }, { fetch: server.fetch });
    expect((await allowing.authenticate(bearer(await sign(es)))).ok).toBe(true);
  });

  it('refuses a JWT when no jwt entries are configured', async () => {
    const a = await makeKey('a');
    const resolver = createIdentityResolver({ virtual_keys: [] });
    expect401(await resolver.authenticate(bearer(await sign(a))), 'jwt: not configured');
  });
});

describe('identity: JWT claims and inline JWKS', () => {
  it('maps configured claims to the principal, ignoring the rest', async () => {
    const a = await makeKey('a', 'EdDSA');
    const resolver = createIdentityResolver({
      jwt: [
        {
          issuer: ISSUER,
          audience: [AUDIENCE, 'other'],
          jwks: { keys: [a.publicJwk] },
          claims: { user: 'email', tier: 'tg_tier', team: 'org.team', bu: 'org.bu', leaders: 'mgmt', application: 'azp' },
        },
      ],
    });
    const token = await sign(a, {
      email: 'alice@example.com',
      tg_tier: 'pilot',
      org: { bu: 'payments', team: 'search' },
      mgmt: ['vp', 'ceo'],
      azp: 'notebook',
      role: 'admin',
      tags: { team: 'x' },
    });
    const r = await resolver.authenticate(bearer(token, { 'x-tollgate-user': 'root' }));
    expect(r).toEqual({
      ok: true,
      method: 'jwt',
      principal: {
        kind: 'user',
        id: 'alice@example.com',
        issuer: ISSUER,
        tier: 'pilot',
        team: 'search',
        bu: 'payments',
        leaders: ['vp', 'ceo'],
        application: 'notebook',
      },
    });
  });

  it('fails closed on a malformed configured claim or a missing subject', async () => {
    const a = await makeKey('a');
    const resolver = createIdentityResolver({
      jwt: [{ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [a.publicJwk] }, claims: { tier: 'tier', leaders: 'leaders' } }],
    });
    expect401(await resolver.authenticate(bearer(await sign(a, { tier: 7 }))));
    expect401(await resolver.authenticate(bearer(await sign(a, { leaders: [1, 2] }))));
    expect401(await resolver.authenticate(bearer(await sign(a, { sub: '' }))));
    expect((await resolver.authenticate(bearer(await sign(a, { tier: 'normal' })))).ok).toBe(true);
  });
});
