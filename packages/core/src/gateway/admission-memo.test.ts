/**
 * Admission keeps which hard caps apply with nothing spent per counter layout, caller, model
 * and tenant tag: these tests check that what it keeps never outlives what it was decided
 * from — a policy or registry reload, a window that rolls over — and that the request's own
 * worst case is still weighed on every request.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type StateStore, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';
import { UNSPENT_MEMO_SIZE } from './admission.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

/** Each call bills 10 + 100 × 10 = 1,010 µ$ (its worst case is 1,010 µ$ too). */
const body = (maxTokens = 100) => JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: maxTokens });

const cap = (window: 'daily' | 'monthly', usd: string): PolicyFileInput => ({
  spend: { rules: [{ id: `cap-${window}`, matches: [{ match: { scope: 'all', window, at_or_above_usd: usd }, actions: [{ type: 'block' }] }] }] },
});

async function setup(policy: PolicyFileInput, tenantOf?: () => string) {
  const { key, hash } = await createVirtualKey();
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const memory = createMemoryStore({ sweepIntervalMs: 0 });
  // What each one-step admission reserved against, and how often the step-by-step path had to reserve.
  const reserved: string[][] = [];
  let reserves = 0;
  const store: StateStore = {
    ...memory,
    admit: async (request) => {
      reserved.push(request.reserve?.constraints.map((c) => c.key) ?? []);
      return memory.admit!(request);
    },
    reserve: async (request) => {
      reserves++;
      return memory.reserve(request);
    },
  };
  const gateway: Gateway = createGateway({
    registry: billingRegistry(),
    policy,
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: upstream.fetch,
    store,
    usage: (r) => void records.push(r),
    ...(tenantOf === undefined ? {} : { tenantOf }),
  });
  open.push(store, gateway);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (maxTokens?: number) => {
    const res = await gateway.handle(new Request('http://gw/v1/chat/completions', { method: 'POST', headers, body: body(maxTokens) }));
    await res.arrayBuffer();
    return res.status;
  };
  const posts = async (n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await post());
    return out;
  };
  return { gateway, store, post, posts, records, reserved, reserves: () => reserves };
}

describe('admission: the caps that apply with nothing spent, kept between requests', () => {
  it('reserves against the new month once the month rolls over', async () => {
    vi.setSystemTime(new Date('2030-01-31T23:59:30Z'));
    const { posts, records, reserved, reserves } = await setup(cap('monthly', '0.0025'));
    expect(await posts(3)).toEqual([200, 200, 429]);
    vi.setSystemTime(new Date('2030-02-01T00:00:01Z'));
    expect(await posts(3)).toEqual([200, 200, 429]);
    // Each request reserved in one step, against its own month's cap.
    expect(reserved.map((keys) => keys.map((k) => k.slice(k.lastIndexOf(':') + 1)))).toEqual([...Array(3).fill(['2030-01']), ...Array(3).fill(['2030-02'])]);
    expect(reserves()).toBe(0);
    const limits = records.filter((r) => r.status === 'rejected').map((r) => r.decision?.limiting?.window_key);
    expect(limits).toEqual(['2030-01', '2030-02']);
    expect(records.filter((r) => r.status === 'ok').map((r) => r.decision?.spend[0]?.window_key)).toEqual(['2030-01', '2030-01', '2030-02', '2030-02']);
  });

  it('reserves against the new day once the day rolls over', async () => {
    vi.setSystemTime(new Date('2030-01-15T23:59:30Z'));
    const { posts, store, reserved, reserves } = await setup(cap('daily', '0.0025'));
    expect(await posts(3)).toEqual([200, 200, 429]);
    vi.setSystemTime(new Date('2030-01-16T00:00:01Z'));
    expect(await posts(3)).toEqual([200, 200, 429]);
    expect(reserved.map((keys) => keys.map((k) => k.slice(k.lastIndexOf(':') + 1)))).toEqual([
      ...Array(3).fill(['2030-01-15']),
      ...Array(3).fill(['2030-01-16']),
    ]);
    expect(reserves()).toBe(0);
    const day = (d: string) => `c:user:alice:${d}:gpt-chat`;
    expect(await store.getCounters([day('2030-01-15'), day('2030-01-16')])).toEqual({ [day('2030-01-15')]: 2_020, [day('2030-01-16')]: 2_020 });
  });

  it('applies a reloaded policy from the next request on, tighter or looser', async () => {
    vi.setSystemTime(new Date('2030-01-15T12:00:00Z'));
    const { gateway, posts, post, reserved, reserves } = await setup(cap('monthly', '0.0025'));
    expect(await posts(2)).toEqual([200, 200]);
    gateway.reload({ policy: cap('monthly', '0.0015') });
    expect(await post()).toBe(429);
    gateway.reload({ policy: cap('monthly', '1') });
    expect(await posts(2)).toEqual([200, 200]);
    gateway.reload({ policy: {} });
    expect(await post()).toBe(200);
    expect(reserved.map((keys) => keys.length)).toEqual([1, 1, 1, 1, 1]);
    expect(reserves()).toBe(0);
  });

  it('applies a reloaded registry (a new counter layout) without losing the cap', async () => {
    vi.setSystemTime(new Date('2030-01-15T12:00:00Z'));
    const { gateway, posts, reserves } = await setup(cap('monthly', '0.0025'));
    expect(await posts(1)).toEqual([200]);
    gateway.reload({ registry: billingRegistry() });
    expect(await posts(2)).toEqual([200, 429]);
    expect(reserves()).toBe(0);
  });

  it("weighs each request's own worst case: one that cannot fit even with nothing spent is refused, the next small one is not", async () => {
    vi.setSystemTime(new Date('2030-01-15T12:00:00Z'));
    const { post, records, reserved } = await setup(cap('monthly', '0.0025'));
    expect(await post(100)).toBe(200);
    expect(await post(1_000)).toBe(429);
    expect(await post(100)).toBe(200);
    expect(await post(100)).toBe(429);
    expect(records.map((r) => r.reason)).toEqual([null, 'spend_limit:cap-monthly', null, 'spend_limit:cap-monthly']);
    // The one too large with nothing spent is decided before anything is reserved.
    expect(reserved).toHaveLength(3);
  });

  it('keeps deciding right for more tenant tags than it keeps per caller', async () => {
    vi.setSystemTime(new Date('2030-01-15T12:00:00Z'));
    let tenant = 0;
    const { post, reserved, reserves } = await setup(cap('monthly', '0.0015'), () => `t${tenant}`);
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (tenant = 0; tenant < UNSPENT_MEMO_SIZE + 6; tenant++) statuses.push(await post());
    }
    // Every tenant has a cap of its own: its first call fits, its second does not.
    expect(statuses).toEqual([...Array<number>(UNSPENT_MEMO_SIZE + 6).fill(200), ...Array<number>(UNSPENT_MEMO_SIZE + 6).fill(429)]);
    expect(reserved.every((keys, i) => keys.length === 1 && keys[0]!.startsWith(`{t${i % (UNSPENT_MEMO_SIZE + 6)}}:`))).toBe(true);
    expect(reserves()).toBe(0);
  });
});
