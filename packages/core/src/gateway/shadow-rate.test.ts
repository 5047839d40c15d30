import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type StateStore, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  // One second into a minute: every call of a test falls in one rate window.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-01T00:00:01Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(policy: PolicyFileInput, store: StateStore = createMemoryStore({ sweepIntervalMs: 0 })) {
  const { key, hash } = await createVirtualKey();
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const gateway: Gateway = createGateway({
    registry: billingRegistry({ maxOutputTokens: 1_000 }),
    policy,
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: upstream.fetch,
    store,
    usage: (r) => void records.push(r),
  });
  open.push(store, gateway);
  const post = async (extra: Record<string, unknown> = {}) => {
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], ...extra }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return { upstream, records, post, store };
}

describe('shadow rate limits: counted, reported, never refusing', () => {
  it('admits past a shadow rule’s rpm and records rate_limit:<id> in would_block from the first request over it', async () => {
    const { post, records, upstream } = await setup({ rate_limits: [{ id: 'trial', rpm: 2, enforcement: 'shadow' }] });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post()).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(upstream.state.calls).toBe(4);
    expect(records.map((r) => r.would_block)).toEqual([[], [], ['rate_limit:trial'], ['rate_limit:trial']]);
    expect(records.every((r) => r.status === 'ok' && r.reason === null)).toBe(true);
  });

  it('puts every rate limit in shadow when the policy is, and keeps enforced and shadow buckets apart', async () => {
    const shadowAll = await setup({ enforcement: 'shadow', rate_limits: [{ id: 'per-user', rpm: 1 }] });
    expect([(await shadowAll.post()).status, (await shadowAll.post()).status]).toEqual([200, 200]);
    expect(shadowAll.records.map((r) => r.would_block)).toEqual([[], ['rate_limit:per-user']]);

    // An enforced rule of 3 beside a shadow rule of 1: the shadow count never uses up the enforced bucket.
    const mixed = await setup({
      rate_limits: [
        { id: 'live', rpm: 3 },
        { id: 'trial', rpm: 1, enforcement: 'shadow' },
      ],
    });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await mixed.post()).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(mixed.records.map((r) => r.would_block)).toEqual([[], ['rate_limit:trial'], ['rate_limit:trial'], ['rate_limit:trial']]);
    expect(mixed.records[3]).toMatchObject({ status: 'rejected', reason: 'rate_limit:live' });
  });

  it('moves a shadow token bucket to the tokens used, as an enforced one: light calls never show in would_block', async () => {
    // Each call's worst case is its 1,000 output tokens plus the prompt bound; it uses 10 + 20.
    const { post, records, upstream } = await setup({ rate_limits: [{ id: 'tokens', tpm: 3_000, enforcement: 'shadow' }] });
    upstream.state.outputTokens = 20;
    for (let i = 0; i < 6; i++) expect((await post()).status).toBe(200);
    expect(records.map((r) => r.would_block)).toEqual([[], [], [], [], [], []]);

    // Without the settle moving them, six worst cases (> 6,000 tokens) would have shown.
    const heavy = await setup({ rate_limits: [{ id: 'tokens', tpm: 3_000, enforcement: 'shadow' }] });
    heavy.upstream.state.outputTokens = null; // uses everything it may
    for (let i = 0; i < 3; i++) expect((await heavy.post()).status).toBe(200);
    expect(heavy.records.map((r) => r.would_block)).toEqual([[], [], ['rate_limit:tokens']]);
  });

  it('never refuses because the store cannot count a shadow bucket', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const failing: StateStore = { ...store, hitRate: async () => Promise.reject(new Error('store down')), admit: undefined };
    const { post, records } = await setup({ rate_limits: [{ id: 'trial', rpm: 1, enforcement: 'shadow' }] }, failing);
    expect([(await post()).status, (await post()).status]).toEqual([200, 200]);
    expect(records.map((r) => r.would_block)).toEqual([[], []]);
  });
});
