import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore, GatewayConfigError, type PolicyFileInput, type StateStore, type UsageRecord, type UsageSink } from '@tollgate/core';
import { createEdgeHandler, type EdgeHandler } from './index.js';
import { OPENAI_SECRET, aliceIdentity, cappedPolicy, chatRequest, edgeRegistry, fakeUpstream, streamedText } from './__tests__/fixture.js';

const open: EdgeHandler[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((h) => h.close({ drainMs: 100 })));
});

async function setup(extra: Partial<Parameters<typeof createEdgeHandler>[0]> = {}) {
  const upstream = fakeUpstream();
  const { key, identity } = await aliceIdentity();
  const records: UsageRecord[] = [];
  const handler = createEdgeHandler({
    registry: edgeRegistry(),
    identity,
    secrets: { OPENAI_API_KEY: OPENAI_SECRET },
    fetch: upstream.fetch,
    usage: (r) => void records.push(r),
    notify: () => {},
    ...extra,
  });
  open.push(handler);
  return { handler, upstream, key, records };
}

/** A `waitUntil` that collects what it was handed. */
function collector() {
  const promises: Promise<unknown>[] = [];
  return { promises, waitUntil: (p: Promise<unknown>) => void promises.push(p) };
}

describe('createEdgeHandler: serving', () => {
  it('streams a chat completion through the gateway with the brokered credential, and records usage', async () => {
    const { handler, upstream, key, records } = await setup();
    const response = await handler(chatRequest(key, { stream: true, stream_options: { include_usage: true } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { text, usage } = await streamedText(response);
    expect(text).toBe('Hello from the edge');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
    expect(upstream.seen[0]!.url).toBe('https://upstream.test/v1/chat/completions');
    expect(upstream.seen[0]!.headers.get('authorization')).toBe(`Bearer ${OPENAI_SECRET}`);
    await vi.waitFor(() => expect(records).toHaveLength(1));
    expect(records[0]).toMatchObject({ status: 'ok', model: 'gpt-mini', stream: true, usage: { input: 9, output: 4, measured: true } });
  });

  it('answers a JSON completion', async () => {
    const { handler, key } = await setup();
    const response = await handler(chatRequest(key));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe('Hello from the edge');
  });

  it('refuses a wrong key with 401 in the OpenAI error shape, before any upstream call', async () => {
    const { handler, upstream, records } = await setup();
    const response = await handler(chatRequest('tg_wrongwrongwrongwrongwrongwrongwrong'));
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { type: string; code: string; message: string } };
    // OpenAI's own 401: type invalid_request_error, code invalid_api_key.
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    expect(body.error.message).toBeTypeOf('string');
    expect(upstream.seen).toHaveLength(0);
    expect(records[0]).toMatchObject({ status: 'rejected', http_status: 401 });
  });

  it('exposes the gateway behind the handler', async () => {
    const { handler, key } = await setup();
    await (await handler(chatRequest(key))).text();
    expect(handler.gateway.stats().requests).toBe(1);
    expect(handler.gateway.registry.revision).toMatch(/^sha256:/);
  });

  it('ignores platform arguments it does not know (Deno info, Bun server, Next.js route context)', async () => {
    const { handler, key } = await setup();
    const response = await handler(chatRequest(key), { remoteAddr: { hostname: '127.0.0.1' } }, { params: Promise.resolve({}) });
    expect(response.status).toBe(200);
    await response.text();
  });

  it('stops taking requests after close()', async () => {
    const { handler, key } = await setup();
    await handler.close();
    const response = await handler(chatRequest(key));
    expect(response.status).toBe(503);
  });
});

describe('createEdgeHandler: hard caps need a shared store', () => {
  it('refuses a policy with an enforced block rule on the per-isolate store, naming the rule and the opt-in', async () => {
    const { identity } = await aliceIdentity();
    let error: unknown;
    try {
      createEdgeHandler({ registry: edgeRegistry(), identity, policy: cappedPolicy(), notify: () => {}, secrets: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    const e = error as GatewayConfigError;
    expect(e.source).toBe('options');
    expect(e.errors[0]!.path).toBe('store');
    expect(e.message).toContain('mini-cap');
    expect(e.message).not.toContain('mini-notify');
    expect(e.message).toContain('allowPerIsolateCaps');
    expect(e.message).toContain('per-isolate cap is no cap');
  });

  it('starts with the explicit opt-in, and the cap then holds within the isolate', async () => {
    const { handler, key } = await setup({ policy: cappedPolicy(), notify: () => {}, allowPerIsolateCaps: true });
    const response = await handler(chatRequest(key));
    expect(response.status).toBe(200);
    await response.text();
  });

  it('starts when a store is given (the platform’s shared store)', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const { handler, key } = await setup({ policy: cappedPolicy(), notify: () => {}, store });
    expect((await handler(chatRequest(key))).status).toBe(200);
    await handler.close();
    // The handler does not close a store it was given.
    await expect(store.getCounters(['x'])).resolves.toEqual({ x: 0 });
    await store.close();
  });

  it('starts when the block rule is in shadow, or the whole policy is', async () => {
    const { identity } = await aliceIdentity();
    for (const policy of [cappedPolicy({ ruleEnforcement: 'shadow' }), cappedPolicy({ enforcement: 'shadow' })]) {
      const handler = createEdgeHandler({ registry: edgeRegistry(), identity, policy, notify: () => {}, secrets: {} });
      open.push(handler);
      expect(handler.gateway.policy).not.toBeNull();
    }
  });

  it('refuses the same caps on reload, keeping the policy in force, and takes them with a store or the opt-in', async () => {
    const soft: PolicyFileInput = { spend: { rules: [cappedPolicy().spend.rules[0]!] } };
    const { handler, key } = await setup({ policy: soft });
    const before = handler.gateway.policyRevision;
    let error: unknown;
    try {
      handler.gateway.reload({ policy: cappedPolicy() });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    const e = error as GatewayConfigError;
    expect([e.source, e.errors[0]!.path]).toEqual(['options', 'store']);
    expect(e.message).toContain('mini-cap');
    expect(e.message).toContain('allowPerIsolateCaps');
    // The last good policy stays: no cap, and requests are served as before.
    expect(handler.gateway.policyRevision).toBe(before);
    expect(handler.gateway.policy?.spend?.rules?.map((r) => r.id)).toEqual(['mini-notify']);
    expect((await handler(chatRequest(key))).status).toBe(200);

    const optedIn = await setup({ policy: soft, allowPerIsolateCaps: true });
    optedIn.handler.gateway.reload({ policy: cappedPolicy() });
    expect(optedIn.handler.gateway.policy?.spend?.rules?.map((r) => r.id)).toEqual(['mini-notify', 'mini-cap']);
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const shared = await setup({ policy: soft, store });
    shared.handler.gateway.reload({ policy: cappedPolicy() });
    expect(shared.handler.gateway.policy?.spend?.rules?.map((r) => r.id)).toEqual(['mini-notify', 'mini-cap']);
    await shared.handler.close();
    await store.close();
  });

  it('still reports an invalid policy as the policy’s own violations', async () => {
    const { identity } = await aliceIdentity();
    const policy: PolicyFileInput = {
      spend: { rules: [{ id: 'x', matches: [{ match: { scope: 'nope', window: 'monthly', at_or_above_usd: '5' }, actions: [{ type: 'block' }] }] }] },
    };
    expect(() => createEdgeHandler({ registry: edgeRegistry(), identity, policy, secrets: {} })).toThrow(
      expect.objectContaining({ source: 'policy' }) as Error,
    );
  });
});

describe('createEdgeHandler: Workers module scope', () => {
  it('sets no timer, draws no random value and fetches nothing while it is created', async () => {
    const { identity } = await aliceIdentity();
    const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const randomSpy = vi.spyOn(crypto, 'getRandomValues');
    const uuidSpy = vi.spyOn(crypto, 'randomUUID');
    const fetchSpy = vi.fn<typeof fetch>();
    const handler = createEdgeHandler({
      registry: edgeRegistry(),
      identity,
      policy: cappedPolicy(),
      notify: () => {},
      allowPerIsolateCaps: true,
      secrets: {},
      fetch: fetchSpy,
    });
    open.push(handler);
    expect(setIntervalSpy).not.toHaveBeenCalled();
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    expect(randomSpy).not.toHaveBeenCalled();
    expect(uuidSpy).not.toHaveBeenCalled();
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('createEdgeHandler: basePath', () => {
  it('routes below a mount point (a Next.js catch-all route)', async () => {
    const { handler, key } = await setup({ basePath: '/api/tollgate/' });
    const response = await handler(chatRequest(key, { stream: true }, '/api/tollgate/v1/chat/completions'));
    expect(response.status).toBe(200);
    expect((await streamedText(response)).text).toBe('Hello from the edge');
  });

  it('leaves paths outside the mount point alone (404)', async () => {
    const { handler, key } = await setup({ basePath: '/api/tollgate' });
    expect((await handler(chatRequest(key, {}, '/api/tollgatex/v1/chat/completions'))).status).toBe(404);
    expect((await handler(chatRequest(key, {}, '/elsewhere/v1/chat/completions'))).status).toBe(404);
  });

  it('refuses a base path that is not a path', async () => {
    const { identity } = await aliceIdentity();
    expect(() => createEdgeHandler({ registry: edgeRegistry(), identity, secrets: {}, basePath: 'api' })).toThrow(GatewayConfigError);
  });
});

describe('createEdgeHandler: waitUntil keeps the isolate alive until usage is delivered', () => {
  it('hands a Worker-style ctx.waitUntil a promise that settles after a stream’s record is delivered', async () => {
    let deliver!: () => void;
    const delivered: UsageRecord[] = [];
    const usage = (r: UsageRecord) =>
      new Promise<void>((resolve) => {
        deliver = () => {
          delivered.push(r);
          resolve();
        };
      });
    const { handler, key } = await setup({ usage });
    const ctx = collector();
    const response = await handler(chatRequest(key, { stream: true }), { SOME_ENV: 'x' }, ctx);
    expect(ctx.promises).toHaveLength(1);
    let done = false;
    void ctx.promises[0]!.then(() => (done = true));
    await streamedText(response);
    await vi.waitFor(() => expect(deliver).toBeTypeOf('function'));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    deliver();
    await ctx.promises[0];
    expect(delivered[0]!.status).toBe('ok');
  });

  it('for a JSON answer or a rejection, waits for the record written before the response', async () => {
    let pending = 0;
    const usage = () => {
      pending++;
      return new Promise<void>((resolve) => setTimeout(() => (pending--, resolve()), 5));
    };
    const { handler, key } = await setup({ usage });
    const ctx = collector();
    await (await handler(chatRequest(key), ctx)).text();
    await (await handler(chatRequest('tg_wrongwrongwrongwrongwrongwrongwrong'), ctx)).text();
    expect(ctx.promises).toHaveLength(2);
    await Promise.all(ctx.promises);
    expect(pending).toBe(0);
  });

  it('flushes a sink object', async () => {
    const written: UsageRecord[] = [];
    let flushes = 0;
    const sink: UsageSink = { write: (r) => void written.push(r), flush: async () => void flushes++, close: async () => {} };
    const { handler, key } = await setup({ usage: sink });
    const ctx = collector();
    await streamedText(await handler(chatRequest(key, { stream: true }), ctx));
    await Promise.all(ctx.promises);
    expect(written).toHaveLength(1);
    expect(flushes).toBeGreaterThanOrEqual(1);
  });

  it('prefers the waitUntil option (Next.js after) over platform arguments', async () => {
    const option = collector();
    const platform = collector();
    const { handler, key } = await setup({ waitUntil: option.waitUntil });
    await (await handler(chatRequest(key), platform)).text();
    expect(option.promises).toHaveLength(1);
    expect(platform.promises).toHaveLength(0);
  });

  it('does not wait for a record that is never written (model discovery)', async () => {
    const { handler, key } = await setup();
    const ctx = collector();
    const response = await handler(new Request('https://gateway.test/v1/models', { headers: { authorization: `Bearer ${key}` } }), ctx);
    expect(response.status).toBe(200);
    await Promise.all(ctx.promises);
  });

  it('without a usage sink, still keeps the isolate alive until a stream’s spend is settled in the shared store', async () => {
    const inner = createMemoryStore({ sweepIntervalMs: 0 });
    let settles = 0;
    let letSettle!: () => void;
    const gate = new Promise<void>((r) => (letSettle = r));
    // A store shared across isolates (a Durable Object, Redis over HTTP): a settle is a round trip.
    const store: StateStore = {
      ...inner,
      settle: async (r) => {
        await gate;
        settles++;
        return inner.settle(r);
      },
    };
    const upstream = fakeUpstream();
    const { key, identity } = await aliceIdentity();
    const handler = createEdgeHandler({
      registry: edgeRegistry(),
      identity,
      policy: cappedPolicy(),
      notify: () => {},
      store,
      secrets: { OPENAI_API_KEY: OPENAI_SECRET },
      fetch: upstream.fetch,
    });
    open.push(handler);
    const ctx = collector();
    const response = await handler(chatRequest(key, { stream: true }), ctx);
    await response.text();
    // The answer is complete: the platform may end the isolate once what it was handed settles.
    let platformDone = false;
    void Promise.all(ctx.promises).then(() => (platformDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(ctx.promises.length).toBeGreaterThan(0);
    expect(platformDone).toBe(false);
    letSettle();
    await Promise.all(ctx.promises);
    expect(settles).toBe(1);
  });
});

describe('createEdgeHandler: budgets on the edge', () => {
  it('carries a refusing entry’s message, the budget headers and the budget endpoint, as in process', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const policy: PolicyFileInput = {
      spend: {
        rules: [
          {
            id: 'edge-cap',
            matches: [
              {
                match: { per: 'org', scope: 'all', window: 'monthly', at_or_above_usd: '0.000001' },
                actions: [{ type: 'block', message: 'The organisation budget is spent.' }],
              },
            ],
          },
        ],
      },
    };
    const { handler, key } = await setup({ policy, store });
    const refused = await handler(chatRequest(key));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('The organisation budget is spent.');
    expect(refused.headers.get('x-tollgate-budget-rule')).toBe('edge-cap');
    expect(refused.headers.get('x-tollgate-budget-limit-usd')).toBe('0.000001');
    const budget = await handler(new Request('https://edge.test/v1/tollgate/budget', { headers: { authorization: `Bearer ${key}` } }));
    expect(budget.status).toBe(200);
    expect(((await budget.json()) as { limits: Array<Record<string, string>> }).limits).toEqual([
      expect.objectContaining({ rule: 'edge-cap', per: 'org', pool: 'org', limit_usd: '0.000001', spent_usd: '0', remaining_usd: '0.000001' }),
    ]);
    await store.close();
  });
});
