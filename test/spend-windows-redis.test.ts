/**
 * The window a request is charged to, on a real Redis: a request whose body arrives after
 * midnight was admitted against the new day's caps (its own and its team's), so it is charged
 * to the new day, and the old day's recorded spend never passes its cap.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, createVirtualKey, type PolicyFileInput } from '@tollgate/core';
import { createRedisStore } from '@tollgate/adapters-node/redis';
import { billingRegistry, billingUpstream } from '../packages/core/src/gateway/__tests__/billing-upstream.js';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';

const redis = await serviceGate('redis');
const keyPrefix = `tg-windows:${crypto.randomUUID()}:`;

afterAll(async () => {
  if (redis.skip) return;
  const admin = new Redis(redis.url);
  let cursor = '0';
  do {
    const [next, found] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await admin.del(...found);
  } while (cursor !== '0');
  await admin.quit();
});

const BODY = JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 });

describe.skipIf(redis.skip)('the window a request is charged to, on Redis', () => {
  beforeAll(() => redis.assertUp());

  it('a body that arrives after midnight is charged to the day whose caps admitted it, the team’s included', async () => {
    // Each call bills 1,010 µ$; the team's daily cap (2,500 µ$) admits two a day.
    const policy = {
      spend: {
        rules: [
          { id: 'team-daily', matches: [{ match: { per: 'team', scope: 'all', window: 'daily', at_or_above_usd: '0.0025' }, actions: [{ type: 'block' }] }] },
        ],
      },
    } satisfies PolicyFileInput;
    const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0 });
    const upstream = billingUpstream();
    const { key, hash } = await createVirtualKey();
    const clock = { now: Date.UTC(2030, 0, 15, 23, 59, 50) };
    const gateway = createGateway({
      registry: billingRegistry(),
      policy,
      identity: { virtual_keys: [{ hash, principal: { user: 'ann', team: 'search' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
      now: () => clock.now,
    });
    try {
      const post = async (body: BodyInit) =>
        (
          await gateway.handle(
            new Request('http://gw/v1/chat/completions', {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body,
              duplex: 'half',
            } as RequestInit),
          )
        ).status;
      expect([await post(BODY), await post(BODY), await post(BODY)]).toEqual([200, 200, 429]);
      const slow = new ReadableStream<Uint8Array>({
        pull(controller) {
          clock.now = Date.UTC(2030, 0, 16, 0, 0, 1);
          controller.enqueue(new TextEncoder().encode(BODY));
          controller.close();
        },
      });
      expect(await post(slow)).toBe(200);
      const day = (d: string) => `c:team:search:${d}:gpt-chat`;
      const counters = await store.getCounters([day('2030-01-15'), day('2030-01-16')]);
      expect(counters[day('2030-01-15')]).toBeLessThanOrEqual(2_500);
      expect(counters[day('2030-01-16')]).toBe(1_010);
      expect([await post(BODY), await post(BODY)]).toEqual([200, 429]);
    } finally {
      await gateway.close();
      await store.close();
    }
  });
});
