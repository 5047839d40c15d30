import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGateway,
  createMemoryStore,
  GatewayConfigError,
  StoreUnavailableError,
  type PolicyFileInput,
  type RegistryFileInput,
  type SettleRequest,
  type StateStore,
  type UsageRecord,
} from '@tollgate/core';
import type { SpendNotification } from '@tollgate/policy';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(options: { policy?: unknown; store?: StateStore; usage?: (r: UsageRecord) => void; notify?: (n: SpendNotification) => void } = {}) {
  const upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: testRegistry(upstream.url),
    policy: options.policy as PolicyFileInput | undefined,
    identity: ids.identity,
    secrets: SECRETS,
    ...(options.store === undefined ? {} : { store: options.store }),
    usage: options.usage ?? ((r) => void records.push(r)),
    ...(options.notify === undefined ? {} : { notify: options.notify }),
  });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const openai = new OpenAI({ apiKey: ids.keys.alice, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
  return { upstream, gateway, openai, records };
}

/** A store whose backend is unreachable: every call fails (`admit` too, unless `withAdmit` is false). */
function deadStore(withAdmit = true): StateStore {
  const fail = async (): Promise<never> => {
    throw new StoreUnavailableError('connection refused');
  };
  const store: StateStore = {
    reserve: fail,
    renew: fail,
    settle: fail,
    release: fail,
    getCounters: fail,
    getHeld: fail,
    hitRate: fail,
    setOnce: fail,
    hasMarker: fail,
    sweep: fail,
    close: async () => {},
  };
  if (withAdmit) store.admit = fail;
  return store;
}

/** The memory store with each call counted by name, and the settles it was asked for. */
function countingStore(): { store: StateStore; calls: string[]; settles: SettleRequest[] } {
  const memory = createMemoryStore();
  const calls: string[] = [];
  const settles: SettleRequest[] = [];
  const store = Object.fromEntries(
    Object.entries(memory).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name);
        if (name === 'settle') settles.push(args[0] as SettleRequest);
        return (fn as (...a: unknown[]) => unknown).apply(memory, args);
      },
    ]),
  ) as unknown as StateStore;
  return { store, calls, settles };
}

const capPolicy = {
  spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] }] },
};

describe('failure semantics (docs/failure-semantics.md)', () => {
  it('refuses to start on an invalid registry, listing every violation', () => {
    const registry = testRegistry('http://127.0.0.1:9');
    const broken = {
      ...registry,
      models: {
        ...registry.models,
        'claude-sonnet': {
          ...registry.models['claude-sonnet'],
          deployments: [{ ...registry.models['claude-sonnet'].deployments[0], provider: 'nope', pricing: undefined }],
        },
      },
    };
    let error: unknown;
    try {
      createGateway({ registry: broken as RegistryFileInput, identity: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    const issues = (error as GatewayConfigError).errors;
    expect(issues.length).toBeGreaterThanOrEqual(2);
    expect(issues.some((i) => i.message.includes('nope'))).toBe(true);
    expect(issues.some((i) => /pric/i.test(i.path + i.message))).toBe(true);
  });

  it('refuses to start on an invalid policy', () => {
    expect(() =>
      createGateway({
        registry: testRegistry('http://127.0.0.1:9'),
        identity: {},
        policy: {
          spend: {
            rules: [{ id: 'x', matches: [{ match: { scope: 'no-such-tag', window: 'monthly', at_or_above_usd: '-1' }, actions: [{ type: 'block' }] }] }],
          },
        },
      }),
    ).toThrow(GatewayConfigError);
  });

  it.each([true, false])(
    'fails closed when spend cannot be evaluated (store unreachable; admit in one step: %s): 503, nothing sent upstream, still recorded',
    async (withAdmit) => {
      const { openai, upstream, records } = await setup({ policy: capPolicy, store: deadStore(withAdmit) });
      const err = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
      expect(upstream.hits('anthropic')).toBe(0);
      expect(records[0]!.status).toBe('rejected');
      expect(records[0]!.reason).toBe('store_unavailable:spend');
    },
  );

  it.each([true, false])('a rate limit that fails closed is what a dead store refuses first (admit in one step: %s)', async (withAdmit) => {
    const policy = { ...capPolicy, rate_limits: [{ id: 'hard', rpm: 10, on_store_error: 'closed' }] };
    const { openai, upstream, records } = await setup({ policy, store: deadStore(withAdmit) });
    const err = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]!.reason).toBe('store_unavailable:rate');
  });

  it('a store whose admit answers null (keys it cannot take in one step) gets the separate calls', async () => {
    const { store: counting, calls } = countingStore();
    const store: StateStore = { ...counting, admit: async () => (calls.push('admit'), null) };
    const policy = { ...capPolicy, rate_limits: [{ id: 'rpm', rpm: 1 }] };
    const { openai, upstream } = await setup({ policy, store });
    await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(calls.slice(0, 4).sort()).toEqual(['admit', 'getCounters', 'hitRate', 'reserve']);
    const limited = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'again' }] }).catch((e: unknown) => e);
    expect((limited as { status?: number }).status).toBe(429);
    expect(upstream.hits('anthropic')).toBe(1);
  });

  it('gives the hold back when admit fails after it reserved (a lost answer): 503, nothing sent, nothing left held', async () => {
    const { store: counting, calls } = countingStore();
    const store: StateStore = {
      ...counting,
      admit: async (request) => {
        await counting.admit!(request);
        throw new StoreUnavailableError('the answer timed out');
      },
    };
    const { openai, upstream, records } = await setup({ policy: capPolicy, store });
    const err = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(503);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]!.reason).toBe('store_unavailable:spend');
    expect(calls).toEqual(['admit', 'release']);
  });

  it('lets traffic through when a rate limit is configured to fail open and the store is down', async () => {
    const policy = { rate_limits: [{ id: 'soft', rpm: 10, on_store_error: 'open' }] };
    const { openai, upstream } = await setup({ policy, store: deadStore() });
    const res = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(upstream.hits('anthropic')).toBe(1);
  });

  it('with a store that has admit, rate, counters and reservation are one store call before the upstream; a refusal after it gives the hold back', async () => {
    const { store, calls, settles } = countingStore();
    // A hard cap at 100 USD, and a pause once 1 USD is spent: past 1 USD the cap still has room
    // (the one step reserves) but the decision over the counters refuses.
    const policy = {
      spend: {
        rules: [
          { id: 'cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] },
          { id: 'pause', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'pause', hours: 1 }] }] },
        ],
      },
      rate_limits: [{ id: 'rpm', rpm: 100 }],
    };
    const { openai, upstream, records } = await setup({ policy, store });
    await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    // Before the upstream call: admit only. After the answer: the settle.
    expect(calls).toEqual(['admit', 'settle']);
    expect(upstream.hits('anthropic')).toBe(1);
    await store.settle({ id: 'spent-elsewhere', charges: settles[0]!.charges.map((c) => ({ counter: c.counter, amount: 2_000_000 })) });
    calls.length = 0;
    const paused = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'again' }] }).catch((e: unknown) => e);
    expect((paused as { status?: number }).status).toBe(429);
    expect(upstream.hits('anthropic')).toBe(1);
    expect(records.at(-1)).toMatchObject({ status: 'rejected', reason: 'paused:pause' });
    // admit, the pause's markers, then the hold given back.
    expect(calls[0]).toBe('admit');
    expect(calls.at(-1)).toBe('release');
    // Spent past the cap: the one step's reservation is refused by the store itself, nothing to give back.
    await store.settle({ id: 'spent-more', charges: settles[0]!.charges.map((c) => ({ counter: c.counter, amount: 99_000_000 })) });
    calls.length = 0;
    const capped = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'more' }] }).catch((e: unknown) => e);
    expect((capped as { status?: number }).status).toBe(429);
    expect(calls).not.toContain('release');
    expect(upstream.hits('anthropic')).toBe(1);
  });

  it('asks the store for rate tokens and spend counters at once (one round trip to a shared store), and still refuses on either', async () => {
    // hitRate answers only once getCounters has been asked too: a gateway that waited for the
    // rate answer before reading the counters would never get one.
    const memory = createMemoryStore();
    let counterAsked!: () => void;
    const asked = new Promise<void>((resolve) => (counterAsked = resolve));
    // Without admit, so the gateway makes the separate calls.
    const { admit: _admit, ...separate } = memory;
    void _admit;
    const store: StateStore = {
      ...separate,
      hitRate: async (buckets) => {
        await Promise.race([
          asked,
          new Promise((_, reject) => setTimeout(() => reject(new StoreUnavailableError('counters were not asked for alongside')), 2000)),
        ]);
        return memory.hitRate(buckets);
      },
      getCounters: (keys) => {
        counterAsked();
        return memory.getCounters(keys);
      },
    };
    const policy = { ...capPolicy, rate_limits: [{ id: 'strict', rpm: 1 }] };
    const { openai, upstream, records } = await setup({ policy, store });
    const res = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toBeTruthy();
    const limited = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'again' }] }).catch((e: unknown) => e);
    expect((limited as { status?: number }).status).toBe(429);
    expect(upstream.hits('anthropic')).toBe(1);
    expect(records.map((r) => r.status)).toEqual(['ok', 'rejected']);
  });

  it('keeps serving when the usage sink throws, and counts the loss', async () => {
    const { openai, gateway } = await setup({
      usage: () => {
        throw new Error('sink down');
      },
    });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(gateway.stats().usageFailed).toBe(3);
    expect(gateway.stats().usageWritten).toBe(0);
  });

  it('does not send a request a required filter could not check', async () => {
    const upstream = await startMockUpstream({ anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json') });
    const ids = await keysFor({ user: 'alice' });
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      identity: ids.identity,
      secrets: SECRETS,
      usage: (r) => void records.push(r),
      filters: [{ name: 'dlp', apply: () => Promise.reject(new Error('scanner timeout')) }],
    });
    cleanups.push(async () => {
      await gateway.close();
      await upstream.close();
    });
    const openai = new OpenAI({ apiKey: ids.keys.alice, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
    await expect(openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(
      OpenAI.APIError,
    );
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]!.reason).toBe('filter:dlp');
  });
});

describe('spend actions beyond block', () => {
  it('substitutes a cheaper model once a budget tier is crossed, says so in a header and the record', async () => {
    const store = createMemoryStore();
    cleanups.push(() => store.close());
    const policy = {
      spend: {
        rules: [
          {
            id: 'frontier-tier',
            matches: [{ match: { scope: 'frontier', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'substitute', to: ['gpt-mini'] }] }],
          },
        ],
      },
    };
    const { openai, records, upstream } = await setup({ policy, store });
    await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'one' }] });
    expect(records[0]!.model).toBe('claude-sonnet');
    const res = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'two' }] }).withResponse();
    expect(res.response.headers.get('x-tollgate-model-fallback')).toBe('claude-sonnet -> gpt-mini');
    expect(records[1]!.model).toBe('gpt-mini');
    expect(records[1]!.substituted_from).toBe('claude-sonnet');
    expect(upstream.hits('openai')).toBe(1);
  });

  it('notifies once per crossing, not on every request', async () => {
    const seen: SpendNotification[] = [];
    const policy = {
      spend: {
        rules: [
          {
            id: 'heads-up',
            matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.000001' }, actions: [{ type: 'notify', to: ['user'] }] }],
          },
        ],
      },
    };
    const { openai } = await setup({ policy, notify: (n) => void seen.push(n) });
    for (let i = 0; i < 4; i++) await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: `hi ${i}` }] });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.ruleId).toBe('heads-up');
  });
});
