/**
 * Shadow rate limits seen by a real OpenAI SDK client, with the shared Redis store: every call
 * is answered, the records say which would have been refused, and the shadow buckets live
 * apart from the enforced ones in Redis.
 */
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createGateway, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { createRedisStore } from '@tollgate/adapters-node/redis';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream } from './support/mock-upstream.js';

const redis = await serviceGate('redis');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
const prefixes: string[] = [];
afterAll(async () => {
  if (prefixes.length === 0 || redis.skip) return;
  const admin = new Redis(redis.url);
  for (const prefix of prefixes) {
    const found = await admin.keys(`${prefix}*`);
    if (found.length > 0) await admin.del(...found);
  }
  await admin.quit();
});

describe.skipIf(redis.skip)('shadow rate limits on Redis, through the OpenAI SDK', () => {
  it('answers every call, records would_block past the shadow rpm, and counts in shadow buckets only', async () => {
    redis.assertUp();
    const upstream = await startMockUpstream({ openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json') });
    const keyPrefix = `tg-shadow:${crypto.randomUUID()}:`;
    prefixes.push(keyPrefix);
    const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0 });
    const ids = await keysFor({ user: 'alice' });
    const records: UsageRecord[] = [];
    const policy: PolicyFileInput = { rate_limits: [{ id: 'trial', rpm: 2, enforcement: 'shadow' }] };
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      policy,
      identity: ids.identity,
      secrets: SECRETS,
      store,
      usage: (r) => void records.push(r),
    });
    cleanups.push(async () => {
      await gateway.close();
      await store.close();
      await upstream.close();
    });
    const client = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });

    // Stay inside one minute window so the count is deterministic.
    const second = new Date().getUTCSeconds();
    if (second > 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    for (let i = 0; i < 4; i++) {
      const answer = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: `hi ${i}` }] });
      expect(answer.choices[0]!.message.content).toBeTypeOf('string');
    }
    expect(upstream.hits('openai')).toBe(4);
    expect(records.map((r) => [r.status, r.would_block])).toEqual([
      ['ok', []],
      ['ok', []],
      ['ok', ['rate_limit:trial']],
      ['ok', ['rate_limit:trial']],
    ]);
    const admin = new Redis(redis.url);
    try {
      const keys = await admin.keys(`${keyPrefix}*w:*`);
      expect(keys.length).toBe(1);
      expect(keys[0]).toContain('w:shadow:rate:trial:');
      // The bucket counted the two calls it let through; the two it would have refused were not taken.
      expect(await admin.hget(keys[0]!, 'u')).toBe('2');
    } finally {
      await admin.quit();
    }
  }, 90_000);
});
