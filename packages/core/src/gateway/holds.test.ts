import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, StoreUnavailableError, type Gateway, type StateStore, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

/**
 * Time is faked (timers, Date and performance.now): the memory store's clock, the gateway's
 * renewal timer and the settle retries' backoff all move only when a test advances it. It starts
 * mid-morning UTC: a test advances it by up to half a minute, and a run that began just before
 * midnight would otherwise charge one day's counter and read the next one's.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  vi.setSystemTime(new Date('2026-03-10T09:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

const TTL = 1_000;

/** A store whose `settle` fails (the store is away) while `failing` says so. */
function flakyStore(inner: StateStore) {
  const state = { failSettles: 0, settleCalls: 0, renewCalls: 0, down: false };
  const store: StateStore = {
    ...inner,
    reserve: (r) => inner.reserve(r),
    renew: async (id, ttl) => {
      state.renewCalls++;
      if (state.down) throw new StoreUnavailableError('store away');
      return inner.renew(id, ttl);
    },
    settle: async (r) => {
      state.settleCalls++;
      if (state.down || state.failSettles > 0) {
        state.failSettles = Math.max(0, state.failSettles - 1);
        throw new StoreUnavailableError('store away');
      }
      return inner.settle(r);
    },
    admit: (r) => inner.admit!(r),
    close: () => inner.close(),
  };
  return { store, state };
}

/**
 * alice's daily cap is $0.15: one call's worst case (4,000 output tokens at $10/Mtok, $0.04,
 * plus its prompt) fits three times over, and each call bills its $0.04 in full.
 */
async function setup() {
  const { key, hash } = await createVirtualKey();
  const memory = createMemoryStore({ sweepIntervalMs: 0 });
  const { store, state } = flakyStore(memory);
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const gateway: Gateway = createGateway({
    registry: billingRegistry(),
    policy: {
      spend: { rules: [{ id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.1' }, actions: [{ type: 'block' }] }] }] },
    },
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: upstream.fetch,
    store,
    reservationTtlMs: TTL,
    usage: (r) => void records.push(r),
  });
  const post = (stream = false) =>
    gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', max_completion_tokens: 4000, stream, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
  const spent = async () => {
    const day = new Date().toISOString().slice(0, 10);
    return (await memory.getCounters([`c:user:alice:${day}:gpt-chat`]))[`c:user:alice:${day}:gpt-chat`]!;
  };
  return { gateway, memory, state, upstream, records, post, spent };
}

describe('holds are renewed from admission until settle, whatever the request', () => {
  it('keeps a whole answer’s hold while its upstream takes longer than the TTL: a second call is not admitted against it', async () => {
    const { gateway, upstream, post, spent, state } = await setup();
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const first = post();
    await vi.advanceTimersByTimeAsync(10);
    expect(upstream.state.calls).toBe(1);
    // Three TTLs later the first call is still waiting on its upstream; its hold still counts.
    await vi.advanceTimersByTimeAsync(3 * TTL);
    expect(state.renewCalls).toBeGreaterThanOrEqual(4);
    upstream.state.gate = null;
    const second = await post();
    const third = await post();
    expect([second.status, third.status].sort()).toEqual([200, 429]);
    release();
    expect((await first).status).toBe(200);
    expect(await spent()).toBe(upstream.state.billedMicros);
    expect(upstream.state.billedMicros).toBeLessThanOrEqual(100_000);
    await gateway.close({ drainMs: 100 });
  });

  it('keeps a stream’s hold while it waits for its first byte', async () => {
    const { gateway, upstream, post, spent } = await setup();
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const first = post(true);
    await vi.advanceTimersByTimeAsync(3 * TTL);
    upstream.state.gate = null;
    const results = [await post(), await post()];
    expect(results.map((r) => r.status).sort()).toEqual([200, 429]);
    release();
    const res = await first;
    await res.text();
    expect(upstream.state.billedMicros).toBeLessThanOrEqual(100_000);
    await gateway.close({ drainMs: 100 });
    expect(await spent()).toBe(upstream.state.billedMicros);
  });
});

describe('a settle the store failed is retried, its hold kept meanwhile', () => {
  it('retries with backoff until the store takes it; the cost is recorded and the hold never lapses', async () => {
    const { gateway, state, post, spent, upstream } = await setup();
    state.failSettles = 5;
    expect((await post()).status).toBe(200);
    expect(await spent()).toBe(0);
    // Past the TTL the retries still go on, and the hold is renewed: two more calls fit, not three.
    await vi.advanceTimersByTimeAsync(2 * TTL);
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(state.failSettles).toBe(0);
    expect(await spent()).toBe(upstream.state.billedMicros);
    const stats = gateway.stats();
    expect(stats).toMatchObject({ settleFailures: 0, settlesPending: 0 });
    expect(stats.settleRetries).toBeGreaterThanOrEqual(5);
    await gateway.close({ drainMs: 100 });
  });

  it('drains the outbox on close within the drain time, and counts what never settled', async () => {
    const recovering = await setup();
    recovering.state.down = true;
    expect((await recovering.post()).status).toBe(200);
    expect(recovering.gateway.stats().settlesPending).toBe(1);
    const closing = recovering.gateway.close({ drainMs: 5_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    recovering.state.down = false;
    await vi.advanceTimersByTimeAsync(1_000);
    await closing;
    expect(await recovering.spent()).toBe(recovering.upstream.state.billedMicros);
    expect(recovering.gateway.stats()).toMatchObject({ settleFailures: 0, settlesPending: 0 });

    const gone = await setup();
    gone.state.down = true;
    expect((await gone.post()).status).toBe(200);
    const started = Date.now();
    const closed = gone.gateway.close({ drainMs: 2_000 });
    await vi.advanceTimersByTimeAsync(2_500);
    await closed;
    expect(Date.now() - started).toBeLessThanOrEqual(2_500);
    expect(gone.gateway.stats()).toMatchObject({ settleFailures: 1, settlesPending: 0 });
  });
});
