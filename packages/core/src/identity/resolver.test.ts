import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '@tollgate/policy';
import { createIdentityResolver, type AuthResult } from './resolver.js';
import { createVirtualKey } from './virtual-key.js';

const URL_ = 'https://gw.example.com/v1/chat/completions';
const req = (headers: Record<string, string> = {}, query = '') => new Request(URL_ + query, { method: 'POST', headers });

function expectFailure(r: AuthResult, code = 'authentication_failed', status = 401) {
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.error.code).toBe(code);
  expect(r.error.status).toBe(status);
}

async function setup() {
  const alice = await createVirtualKey();
  const resolver = createIdentityResolver({
    virtual_keys: [
      {
        hash: alice.hash.toUpperCase().replace('SHA256:', 'sha256:'),
        principal: { user: 'alice', tier: 'normal', bu: 'payments', leaders: ['ceo', 'vp'], workflow: 'triage' },
      },
    ],
  });
  return { alice, resolver };
}

describe('identity: virtual keys', () => {
  it('round-trips a key presented where each vendor SDK sends it', async () => {
    const { alice, resolver } = await setup();
    const requests = [
      req({ authorization: `Bearer ${alice.key}` }), // OpenAI SDK, Anthropic authToken
      req({ 'x-api-key': alice.key }), // Anthropic SDK
      req({ 'x-goog-api-key': alice.key }), // Google GenAI SDK
      req({}, `?key=${alice.key}`), // Gemini REST
    ];
    for (const r of requests) {
      const result = await resolver.authenticate(r);
      expect(result).toEqual({
        ok: true,
        method: 'virtual_key',
        keyHash: alice.hash,
        principal: { kind: 'user', id: 'alice', tier: 'normal', bu: 'payments', leaders: ['ceo', 'vp'], workflow: 'triage' },
      });
    }
  });

  it('answers a key used again as the first time, and a key one character off still fails', async () => {
    const alice = await createVirtualKey();
    const bob = await createVirtualKey();
    const resolver = createIdentityResolver({
      virtual_keys: [
        { hash: alice.hash, principal: { user: 'alice' } },
        { hash: bob.hash, principal: { user: 'bob' } },
      ],
    });
    const as = async (key: string) => resolver.authenticate(req({ authorization: `Bearer ${key}` }));
    const last = alice.key.at(-1) === 'A' ? 'B' : 'A';
    for (let round = 0; round < 3; round++) {
      expect(await as(alice.key)).toEqual({ ok: true, method: 'virtual_key', keyHash: alice.hash, principal: { kind: 'user', id: 'alice' } });
      expect(await as(bob.key)).toEqual({ ok: true, method: 'virtual_key', keyHash: bob.hash, principal: { kind: 'user', id: 'bob' } });
      expectFailure(await as(alice.key.slice(0, -1) + last));
    }
    // Each answer is the caller's own object.
    expect(await as(alice.key)).not.toBe(await as(alice.key));
  });

  it('refuses a wrong key with a generic 401 that never echoes the key', async () => {
    const { resolver } = await setup();
    const other = await createVirtualKey();
    const r = await resolver.authenticate(req({ authorization: `Bearer ${other.key}` }));
    expectFailure(r);
    if (!r.ok) {
      expect(r.error.message).toBe('Invalid API key or token.');
      expect(JSON.stringify({ m: r.error.message, d: r.error.detail })).not.toContain(other.key);
    }
    expectFailure(await resolver.authenticate(req({ 'x-api-key': 'sk-not-a-tollgate-key' })));
  });

  it('distinguishes missing from invalid only in the message', async () => {
    const { resolver } = await setup();
    const missing = await resolver.authenticate(req());
    const invalid = await resolver.authenticate(req({ 'x-api-key': 'tg_' + 'x'.repeat(40) }));
    expectFailure(missing);
    expectFailure(invalid);
    if (!missing.ok && !invalid.ok) expect(missing.error.message).not.toBe(invalid.error.message);
  });

  it('never takes identity from caller-set headers', async () => {
    const { alice, resolver } = await setup();
    const spoof = { 'x-tollgate-user': 'admin', 'x-user-id': 'admin', 'x-tollgate-tier': 'unlimited', 'x-tollgate-bu': 'exec' };
    expectFailure(await resolver.authenticate(req(spoof)));
    const r = await resolver.authenticate(req({ ...spoof, authorization: `Bearer ${alice.key}` }));
    expect(r.ok && r.principal).toMatchObject({ id: 'alice', tier: 'normal', bu: 'payments' });
  });

  it('refuses two different keys in one request', async () => {
    const { alice, resolver } = await setup();
    const other = await createVirtualKey();
    expectFailure(await resolver.authenticate(req({ authorization: `Bearer ${alice.key}`, 'x-api-key': other.key })));
  });

  it('hands out frozen principals', async () => {
    const { alice, resolver } = await setup();
    const r = await resolver.authenticate(req({ 'x-api-key': alice.key }));
    expect(r.ok && Object.isFrozen(r.principal)).toBe(true);
  });
});

describe('identity: lookup function', () => {
  it('resolves keys from a store by hash and honours revocation without a restart', async () => {
    const k = await createVirtualKey();
    const db = new Map<string, Principal>([[k.hash, { kind: 'user', id: 'bob', tier: 'pilot' }]]);
    const lookup = vi.fn(async (hash: string) => db.get(hash) ?? null);
    const resolver = createIdentityResolver(lookup);

    const ok = await resolver.authenticate(req({ authorization: `Bearer ${k.key}` }));
    expect(ok).toEqual({ ok: true, method: 'lookup', keyHash: k.hash, principal: { kind: 'user', id: 'bob', tier: 'pilot' } });
    expect(lookup).toHaveBeenCalledWith(k.hash);
    expect(JSON.stringify(lookup.mock.calls)).not.toContain(k.key);

    db.delete(k.hash); // revoke
    expectFailure(await resolver.authenticate(req({ authorization: `Bearer ${k.key}` })));
  });

  it('combines with static config: config first, then the function', async () => {
    const cfg = await createVirtualKey();
    const dyn = await createVirtualKey();
    const lookup = vi.fn((hash: string): Principal | null => (hash === dyn.hash ? { kind: 'service', id: 'batch' } : null));
    const resolver = createIdentityResolver({ virtual_keys: [{ hash: cfg.hash, principal: { user: 'carol' } }], lookup });
    const a = await resolver.authenticate(req({ 'x-api-key': cfg.key }));
    expect(a.ok && a.method).toBe('virtual_key');
    expect(lookup).not.toHaveBeenCalled();
    const b = await resolver.authenticate(req({ 'x-api-key': dyn.key }));
    expect(b.ok && b.principal).toEqual({ kind: 'service', id: 'batch' });
  });

  it('fails closed (503, not a pass) when the lookup throws or returns garbage', async () => {
    const k = await createVirtualKey();
    const throwing = createIdentityResolver(() => {
      throw new Error(`db down while reading ${k.key}`);
    });
    const r = await throwing.authenticate(req({ 'x-api-key': k.key }));
    expectFailure(r, 'unavailable', 503);
    if (!r.ok) expect(JSON.stringify([r.error.message, r.error.detail])).not.toContain(k.key);
    const garbage = createIdentityResolver(() => ({ id: '' }) as unknown as Principal);
    expectFailure(await garbage.authenticate(req({ 'x-api-key': k.key })), 'unavailable', 503);
  });
});

describe('identity: application credentials', () => {
  it('resolves to an application principal', async () => {
    const app = await createVirtualKey();
    const user = await createVirtualKey();
    const resolver = createIdentityResolver({
      virtual_keys: [{ hash: user.hash, principal: { user: 'dave', team: 'search' } }],
      applications: [{ id: 'support-bot', hash: app.hash, bu: 'support', tier: 'prod', team: 'care' }],
    });
    const r = await resolver.authenticate(req({ authorization: `Bearer ${app.key}` }));
    expect(r).toEqual({
      ok: true,
      method: 'application',
      keyHash: app.hash,
      principal: { kind: 'application', id: 'support-bot', application: 'support-bot', bu: 'support', tier: 'prod', team: 'care' },
    });
    expect(await resolver.authenticate(req({ authorization: `Bearer ${user.key}` }))).toMatchObject({
      principal: { kind: 'user', id: 'dave', team: 'search' },
    });
  });
});

describe('identity: config validation', () => {
  it('throws listing every violation at construction', () => {
    expect(() =>
      createIdentityResolver({
        virtual_keys: [{ hash: 'md5:abc', principal: { user: '' } }],
        surprise: true,
      } as never),
    ).toThrow(/virtual_keys\[0\]\.hash[\s\S]*virtual_keys\[0\]\.principal\.user[\s\S]*surprise/);
  });
});
