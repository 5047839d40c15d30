import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type StateStore, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { AUDIENCE, makeKey, sign } from '../identity/__tests__/fixtures.js';
import { anthropicUpstream, registry } from './__tests__/anthropic-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

// About 100 micro-USD per call (12 in × $3 + 4 out × $15 per Mtok), ~420 worst case: a few calls fill it.
const policy = {
  spend: { rules: [{ id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.001' }, actions: [{ type: 'block' }] }] }] },
} satisfies PolicyFileInput;
const ISSUER_A = 'https://idp-a.example';
const ISSUER_B = 'https://idp-b.example';

async function setup(options: { store?: StateStore; tenantOf?: Parameters<typeof createGateway>[0]['tenantOf'] } = {}) {
  const user = await createVirtualKey();
  const app = await createVirtualKey();
  const keyA = await makeKey('a');
  const keyB = await makeKey('b');
  const records: UsageRecord[] = [];
  const store = options.store ?? createMemoryStore();
  const gateway: Gateway = createGateway({
    registry: registry(),
    policy,
    identity: {
      virtual_keys: [{ hash: user.hash, principal: { user: 'alice' } }],
      applications: [{ id: 'alice', hash: app.hash }],
      jwt: [
        { issuer: ISSUER_A, audience: AUDIENCE, jwks: { keys: [keyA.publicJwk] } },
        { issuer: ISSUER_B, audience: AUDIENCE, jwks: { keys: [keyB.publicJwk] } },
      ],
    },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant' },
    fetch: anthropicUpstream().fetch,
    store,
    usage: (r) => void records.push(r),
    ...(options.tenantOf === undefined ? {} : { tenantOf: options.tenantOf }),
  });
  open.push(store, gateway);
  const credentials = {
    user: user.key,
    application: app.key,
    jwtA: await sign(keyA, { iss: ISSUER_A, sub: 'alice' }),
    jwtB: await sign(keyB, { iss: ISSUER_B, sub: 'alice' }),
  };
  const post = (who: keyof typeof credentials) =>
    gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials[who]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
  /** Call until the cap refuses; returns how many calls were served. */
  const exhaust = async (who: keyof typeof credentials): Promise<number> => {
    for (let served = 0; served < 50; served++) {
      const res = await post(who);
      await res.arrayBuffer();
      if (res.status === 429) return served;
      expect(res.status).toBe(200);
    }
    throw new Error('the cap never refused');
  };
  return { gateway, store, records, post, exhaust };
}

describe('counters, caps and buckets are kept per principal kind and issuer', () => {
  it('an application named alice spending to its cap does not move user alice’s cap', async () => {
    const { exhaust, post, records } = await setup();
    expect(await exhaust('application')).toBeGreaterThan(0);
    const user = await post('user');
    expect(user.status).toBe(200);
    expect(await exhaust('user')).toBeGreaterThan(0);
    expect(records.at(-1)!.principal).toMatchObject({ kind: 'user', id: 'alice', issuer: null });
  });

  it('alice of one identity provider does not spend the budget of alice of another, nor of the virtual key alice', async () => {
    const { exhaust, post, records } = await setup();
    expect(await exhaust('jwtA')).toBeGreaterThan(0);
    expect(records.at(-1)!.principal).toMatchObject({ kind: 'user', id: 'alice', issuer: ISSUER_A });
    expect((await post('jwtB')).status).toBe(200);
    expect((await post('user')).status).toBe(200);
    expect((await post('jwtA')).status).toBe(429);
  });

  it('writes the documented keys, with the tenant tag first when tenantOf names one', async () => {
    const store = createMemoryStore();
    const { post } = await setup({ store, tenantOf: (p) => (p.issuer === ISSUER_A ? 'acme' : null) });
    expect((await post('jwtA')).status).toBe(200);
    expect((await post('application')).status).toBe(200);
    const day = new Date().toISOString().slice(0, 10);
    const counters = await store.getCounters([
      `{acme}:c:user@https%3A//idp-a.example:alice:${day}:claude-sonnet`,
      `c:application:alice:${day}:claude-sonnet`,
      `c:alice:${day}:claude-sonnet`,
    ]);
    expect(Object.values(counters).map((v) => v > 0)).toEqual([true, true, false]);
  });
});
