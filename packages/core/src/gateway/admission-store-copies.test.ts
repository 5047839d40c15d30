/**
 * Admission keeps the caps that apply between requests, but each request hands its store
 * constraints of its own: the StateStore contract lets a custom store fill in or rewrite the
 * constraints it is handed (store/types.ts; docs/spend-integrity.md, for implementers).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type StateStore } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

const body = JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 });
const policy: PolicyFileInput = {
  spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.0025' }, actions: [{ type: 'block' }] }] }] },
};

/** A custom store that normalises each constraint's amount in place before delegating (allowed by the types). */
function normalisingStore(): StateStore {
  const memory = createMemoryStore({ sweepIntervalMs: 0 });
  const normalise = (r: { amount: number; constraints: Array<{ amount?: number }> }) => {
    for (const c of r.constraints) c.amount ??= r.amount;
  };
  return {
    ...memory,
    admit: async (request) => {
      if (request.reserve !== null) normalise(request.reserve);
      return memory.admit!(request);
    },
    reserve: async (request) => {
      normalise(request);
      return memory.reserve(request);
    },
  };
}

describe('admission: constraints handed to a custom store', () => {
  it('a store that fills in constraint amounts in place still admits', async () => {
    const { key, hash } = await createVirtualKey();
    const upstream = billingUpstream();
    const store = normalisingStore();
    const gateway: Gateway = createGateway({
      registry: billingRegistry(),
      policy,
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
    });
    open.push(store, gateway);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await gateway.handle(
        new Request('http://gw/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body }),
      );
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
