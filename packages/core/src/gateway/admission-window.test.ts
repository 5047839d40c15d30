import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-15T23:59:50Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

const BODY = JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 });

describe('the window a request is charged to', () => {
  it('a body that arrives after midnight is charged to the day whose cap admitted it', async () => {
    // Each call bills 10 + 100 × 10 = 1,010 µ$; a 2,500 µ$ daily cap admits two a day.
    const policy = {
      spend: { rules: [{ id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.0025' }, actions: [{ type: 'block' }] }] }] },
    } satisfies PolicyFileInput;
    const { key, hash } = await createVirtualKey();
    const upstream = billingUpstream();
    const records: UsageRecord[] = [];
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const gateway: Gateway = createGateway({
      registry: billingRegistry(),
      policy,
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
      usage: (r) => void records.push(r),
    });
    open.push(store, gateway);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (body: BodyInit) => {
      const res = await gateway.handle(new Request('http://gw/v1/chat/completions', { method: 'POST', headers, body, duplex: 'half' } as RequestInit));
      return res.status;
    };
    expect([await post(BODY), await post(BODY), await post(BODY)]).toEqual([200, 200, 429]);

    // A client starts a request before midnight and sends its body after it.
    const slow = new ReadableStream<Uint8Array>({
      pull(controller) {
        vi.setSystemTime(new Date('2030-01-16T00:00:01Z'));
        controller.enqueue(new TextEncoder().encode(BODY));
        controller.close();
      },
    });
    expect(await post(slow)).toBe(200);

    const day = (d: string) => `c:user:alice:${d}:gpt-chat`;
    const counters = await store.getCounters([day('2030-01-15'), day('2030-01-16')]);
    // The 15th's cap was never passed, and the 16th's spend counts what its cap admitted.
    expect(counters[day('2030-01-15')]).toBeLessThanOrEqual(2_500);
    expect(counters[day('2030-01-16')]).toBe(1_010);
    expect(counters[day('2030-01-15')]! + counters[day('2030-01-16')]!).toBe(upstream.state.billedMicros);
    // So the 16th admits one more call, not two.
    expect([await post(BODY), await post(BODY)]).toEqual([200, 429]);
  });
});
