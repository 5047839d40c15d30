/**
 * The promise of a hard cap, as a property: over random interleavings of calls on two gateway
 * instances sharing one store (streamed or not, several choices, large prompts), upstream calls
 * that finish in any order and outlive the reservation TTL, and settles the store fails a few
 * times before taking them, the spend recorded for every principal never passes its cap, nor
 * does what the upstream billed — and nothing billed goes unrecorded. Both principals share a
 * business unit whose pooled cap is smaller than their two caps together, and an in-flight
 * limit: the BU's recorded (and billed) spend never passes its cap, and never more calls of
 * the BU are at the upstream than the limit allows. On the memory store and on Redis.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createGateway,
  createMemoryStore,
  createVirtualKey,
  StoreUnavailableError,
  type Gateway,
  type PolicyFileInput,
  type RegistryFileInput,
  type StateStore,
} from '@tollgate/core';
import { createRedisStore } from '@tollgate/adapters-node/redis';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';

const redis = await serviceGate('redis');

const TTL = 600;
const CAP_MICROS = 100_000; // $0.10 a day per principal
const BU_CAP_MICROS = 150_000; // $0.15 a day for the two of them together
const IN_FLIGHT = 3; // calls of the BU at the upstream at once
const WHO = ['user', 'application'] as const;

/** $1/Mtok in, $10/Mtok out: 1 and 10 micro-USD per token. */
const registry: RegistryFileInput = {
  wire_formats: { openai_chat: { family: 'chat' } },
  entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
  credentials: { key: { kind: 'bearer', secret: 'UPSTREAM_KEY' } },
  providers: { openai: { base_url: 'https://openai.test', credential: 'key' } },
  operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
  models: {
    'gpt-chat': {
      brand: 'openai',
      entry_formats: ['openai_chat'],
      capabilities: { max_output_tokens: 4000 },
      deployments: [
        { id: 'chat@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'gpt-x', pricing: { unit: 'usd_per_mtok', input: '1', output: '10' } },
      ],
    },
  },
};
const policy = {
  spend: {
    rules: [
      { id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.1' }, actions: [{ type: 'block' }] }] },
      { id: 'bu-daily', matches: [{ match: { per: 'bu', scope: 'all', window: 'daily', at_or_above_usd: '0.15' }, actions: [{ type: 'block' }] }] },
    ],
  },
  rate_limits: [{ id: 'bu-in-flight', per: 'bu', concurrent: IN_FLIGHT }],
} satisfies PolicyFileInput;

type Op =
  | { type: 'call'; gateway: 0 | 1; who: 0 | 1; maxTokens: number; n: number; stream: boolean; promptBytes: number }
  | { type: 'finish'; pick: number; used: number }
  | { type: 'failSettles'; gateway: 0 | 1; times: number }
  | { type: 'wait'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      type: fc.constant('call' as const),
      gateway: fc.constantFrom(0 as const, 1 as const),
      who: fc.constantFrom(0 as const, 1 as const),
      maxTokens: fc.integer({ min: 100, max: 3000 }),
      n: fc.integer({ min: 1, max: 3 }),
      stream: fc.boolean(),
      promptBytes: fc.constantFrom(2, 2_000, 20_000),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('finish' as const),
      pick: fc.nat(10),
      used: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('failSettles' as const),
      gateway: fc.constantFrom(0 as const, 1 as const),
      times: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('wait' as const), ms: fc.constantFrom(0, 30, Math.round(TTL * 1.4)) }) },
);

/** One store seen through a gateway: its settles fail while `failing` > 0. */
function flaky(inner: StateStore) {
  const state = { failing: 0 };
  const store: StateStore = {
    reserve: (r) => inner.reserve(r),
    renew: (id, ttl) => inner.renew(id, ttl),
    settle: async (r) => {
      if (state.failing > 0) {
        state.failing--;
        throw new StoreUnavailableError('settle failed (injected)');
      }
      return inner.settle(r);
    },
    release: (id) => inner.release(id),
    getCounters: (keys) => inner.getCounters(keys),
    getHeld: (keys) => inner.getHeld(keys),
    hitRate: (buckets) => inner.hitRate(buckets),
    admit: (request) => inner.admit!(request),
    setOnce: (key, ttl) => inner.setOnce(key, ttl),
    hasMarker: (key) => inner.hasMarker(key),
    sweep: () => inner.sweep(),
    close: async () => {},
  };
  return { store, state };
}

/** The upstream: every call waits until the schedule finishes it, then bills what it used. */
function heldUpstream() {
  const billed = [0, 0];
  const pending: Array<(fraction: number) => void> = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = await request.text();
    const body = JSON.parse(text) as { n?: number; max_completion_tokens: number; stream?: boolean; messages: Array<{ content: string }> };
    const who = body.messages[0]!.content.startsWith('who:1') ? 1 : 0;
    const fraction = await new Promise<number>((resolve) => pending.push(resolve));
    const n = body.n ?? 1;
    const output = n * Math.floor(fraction * body.max_completion_tokens);
    const prompt = Math.ceil(text.length / 4);
    billed[who]! += prompt + output * 10;
    const usage = { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output };
    const base = { id: 'c1', created: 1, model: 'gpt-x' };
    if (body.stream === true) {
      const chunk = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
      const sse =
        chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'x' }, finish_reason: null }] }) +
        chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }) +
        chunk({ ...base, object: 'chat.completion.chunk', choices: [], usage }) +
        'data: [DONE]\n\n';
      return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
    }
    const choices = Array.from({ length: n }, (_, index) => ({ index, finish_reason: 'length', message: { role: 'assistant', content: 'x' } }));
    return new Response(JSON.stringify({ ...base, object: 'chat.completion', choices, usage }), { headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchImpl, billed, pending };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function runSchedule(ops: Op[], makeStore: () => Promise<{ store: StateStore; done: () => Promise<void> }>): Promise<void> {
  const { store: shared, done } = await makeStore();
  const upstream = heldUpstream();
  const user = await createVirtualKey();
  const app = await createVirtualKey();
  const keys = [user.key, app.key];
  const flakies = [flaky(shared), flaky(shared)];
  const gateways: Gateway[] = flakies.map((f) =>
    createGateway({
      registry,
      policy,
      identity: {
        virtual_keys: [{ hash: user.hash, principal: { user: 'alice', bu: 'payments' } }],
        applications: [{ id: 'alice', hash: app.hash, bu: 'payments' }],
      },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store: f.store,
      reservationTtlMs: TTL,
      settleRetry: { minDelayMs: 20, maxDelayMs: 150 },
    }),
  );
  const day = () => new Date().toISOString().slice(0, 10);
  const recorded = async () => {
    const counterKeys = [`c:user:alice:${day()}:gpt-chat`, `c:application:alice:${day()}:gpt-chat`, `c:bu:payments:${day()}:gpt-chat`];
    const values = await shared.getCounters(counterKeys);
    return counterKeys.map((k) => values[k] ?? 0);
  };
  const calls: Array<Promise<void>> = [];
  try {
    for (const op of ops) {
      if (op.type === 'call') {
        const arrived = upstream.pending.length;
        const body = {
          model: 'gpt-chat',
          n: op.n,
          stream: op.stream,
          max_completion_tokens: op.maxTokens,
          messages: [{ role: 'user', content: `who:${op.who} ${'p'.repeat(op.promptBytes)}` }],
        };
        const call = (async () => {
          const res = await gateways[op.gateway]!.handle(
            new Request('http://gw/v1/chat/completions', {
              method: 'POST',
              headers: { authorization: `Bearer ${keys[op.who]}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            }),
          );
          await res.text();
          expect([200, 429]).toContain(res.status);
        })();
        calls.push(call);
        // Until it reaches the upstream or is answered (refused): admission happened either way.
        let answered = false;
        void call.finally(() => (answered = true));
        while (!answered && upstream.pending.length === arrived) await sleep(1);
      } else if (op.type === 'finish') {
        if (upstream.pending.length > 0) upstream.pending.splice(op.pick % upstream.pending.length, 1)[0]!(op.used);
        await sleep(5);
      } else if (op.type === 'failSettles') {
        flakies[op.gateway]!.state.failing += op.times;
      } else {
        await sleep(op.ms);
      }
      const now = await recorded();
      for (const i of [0, 1]) expect(now[i], `${WHO[i]} recorded`).toBeLessThanOrEqual(CAP_MICROS);
      expect(now[2], 'BU recorded').toBeLessThanOrEqual(BU_CAP_MICROS);
      expect(upstream.pending.length, 'BU calls in flight').toBeLessThanOrEqual(IN_FLIGHT);
    }
    while (upstream.pending.length > 0) upstream.pending.shift()!(1);
    await Promise.all(calls);
    for (const g of gateways) await g.close({ drainMs: 5_000 });
    const final = await recorded();
    for (const i of [0, 1]) {
      expect(final[i], `${WHO[i]} recorded`).toBeLessThanOrEqual(CAP_MICROS);
      expect(upstream.billed[i], `${WHO[i]} billed`).toBeLessThanOrEqual(CAP_MICROS);
      // Nothing billed goes unrecorded: every failed settle was retried until the store took it.
      expect(final[i], `${WHO[i]} recorded vs billed`).toBe(upstream.billed[i]);
    }
    // The pool: every settle charged it too, and it never passed its cap.
    expect(final[2], 'BU recorded').toBe(final[0]! + final[1]!);
    expect(final[2], 'BU recorded').toBeLessThanOrEqual(BU_CAP_MICROS);
    for (const g of gateways) expect(g.stats().settleFailures).toBe(0);
  } finally {
    while (upstream.pending.length > 0) upstream.pending.shift()!(0);
    await Promise.allSettled(calls);
    for (const g of gateways) await g.close({ drainMs: 100 });
    await done();
  }
}

const schedules = fc.array(opArb, { minLength: 4, maxLength: 24 });

describe('hard caps hold over random interleavings', () => {
  it('on the memory store', async () => {
    await fc.assert(
      fc.asyncProperty(schedules, (ops) =>
        runSchedule(ops, async () => {
          const store = createMemoryStore({ sweepIntervalMs: 0 });
          return { store, done: () => store.close() };
        }),
      ),
      { numRuns: 30, endOnFailure: true },
    );
  }, 180_000);

  const prefixes: string[] = [];
  afterAll(async () => {
    if (prefixes.length === 0) return;
    const admin = new Redis(redis.url);
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, found] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (found.length > 0) await admin.del(...found);
      } while (cursor !== '0');
    }
    await admin.quit();
  });

  it.skipIf(redis.skip)(
    'on Redis',
    async () => {
      redis.assertUp();
      await fc.assert(
        fc.asyncProperty(schedules, (ops) =>
          runSchedule(ops, async () => {
            const keyPrefix = `tg-prop:${crypto.randomUUID()}:`;
            prefixes.push(keyPrefix);
            const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0 });
            return { store, done: () => store.close() };
          }),
        ),
        { numRuns: 12, endOnFailure: true },
      );
    },
    180_000,
  );
});
