/**
 * A key lookup (IdentityOptions.lookup) may serve principals from its own cache and change them
 * in place. The gateway keeps decisions per principal object, so it takes a copy of what the
 * lookup returns: a tier downgrade applies to the next request, here to the refusal of a field
 * no bound covers (tools.web_search_preview) once a hard cap covers the caller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway } from '../index.js';
import type { Principal } from '@tollgate/policy';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

describe('identity lookup: a looked-up principal whose tier changes', () => {
  it('refuses an unbounded field once the caller falls under a hard cap', async () => {
    const carol = await createVirtualKey();
    const upstream = billingUpstream();
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const cached: Principal = { kind: 'user', id: 'carol', tier: 'pro' };
    const gateway: Gateway = createGateway({
      registry: billingRegistry(),
      policy: {
        spend: {
          rules: [
            { id: 'free-daily', matches: [{ match: { tiers: ['free'], scope: 'all', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] },
          ],
        },
      },
      identity: { lookup: (hash) => (hash === carol.hash ? cached : null) },
      secrets: { UPSTREAM_KEY: 'sk-up' },
      fetch: upstream.fetch,
      store,
    });
    open.push(store, gateway);
    const body = { model: 'gpt-resp', input: 'news?', max_output_tokens: 100, tools: [{ type: 'web_search_preview' }] };
    const post = async () => {
      const res = await gateway.handle(
        new Request('http://gw/v1/responses', {
          method: 'POST',
          headers: { authorization: `Bearer ${carol.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      await res.arrayBuffer();
      return res.status;
    };
    expect(await post()).toBe(200); // pro: no cap, forwarded
    (cached as { tier?: string }).tier = 'free'; // the lookup's cache downgrades carol in place
    expect(await post()).toBe(400); // free: capped, the unbounded field must be refused
  });
});
