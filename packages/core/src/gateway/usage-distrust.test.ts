/**
 * An upstream that lies about usage (or reports it broken) is not believed past what the request
 * could have used: recorded spend stays within the hard cap, the hold is settled exactly once,
 * nothing crashes, and `stats()` counts what was distrusted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry } from './__tests__/billing-upstream.js';

/** An OpenAI Chat upstream answering "hello" with the usage `usage()` gives (whole or streamed). */
function lyingUpstream(usage: () => unknown) {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as Record<string, unknown>;
    if (request.url.endsWith('/v1/embeddings')) {
      return Response.json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'emb-up', usage: usage() });
    }
    if (body.stream === true) {
      const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream' };
      const chunk = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
      const text =
        chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hello' }, finish_reason: null }] }) +
        chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
        chunk({ ...base, choices: [], usage: usage() }) +
        'data: [DONE]\n\n';
      return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    return Response.json({
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-upstream',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
      usage: usage(),
    });
  }) as typeof fetch;
}

const gateways: Gateway[] = [];
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close({ drainMs: 10 });
});

async function setup(usage: () => unknown, options: { cap?: boolean; ttlMs?: number; outputPrice?: string } = {}) {
  const { key, hash } = await createVirtualKey();
  const memory = createMemoryStore({ sweepIntervalMs: 0 });
  const records: UsageRecord[] = [];
  const registry = billingRegistry() as ReturnType<typeof billingRegistry> & {
    models: Record<string, unknown>;
    operations: unknown[];
    entry_routes: unknown[];
  };
  registry.entry_routes.push({ path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' });
  registry.operations.push({ provider: 'openai', format: 'openai_chat', family: 'chat', kind: 'embed', path: '/v1/embeddings' });
  registry.models['emb'] = {
    brand: 'openai',
    kind: 'embed',
    entry_formats: ['openai_chat'],
    deployments: [
      { id: 'emb@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'emb-up', pricing: { unit: 'usd_per_mtok', input: '1', output: '0' } },
    ],
  };
  if (options.outputPrice !== undefined) {
    const chat = registry.models['gpt-chat'] as unknown as { deployments: Array<{ pricing: Record<string, string> }> };
    chat.deployments[0]!.pricing = { unit: 'usd_per_mtok', input: '1', output: options.outputPrice };
  }
  const gateway = createGateway({
    registry,
    ...(options.cap === false
      ? { policy: { rate_limits: [{ id: 'roomy', match: {}, rpm: 1000 }] } }
      : {
          policy: {
            spend: { rules: [{ id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.1' }, actions: [{ type: 'block' }] }] }] },
          },
        }),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: lyingUpstream(usage),
    store: memory,
    reservationTtlMs: options.ttlMs ?? 300_000,
    usage: (r) => void records.push(r),
  });
  gateways.push(gateway);
  const post = (stream = false, extra: Record<string, unknown> = {}) =>
    gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', max_completion_tokens: 100, stream, messages: [{ role: 'user', content: 'hi' }], ...extra }),
      }),
    );
  const embed = () =>
    gateway.handle(
      new Request('http://gw/v1/embeddings', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'emb', input: 'hello there' }),
      }),
    );
  const day = new Date().toISOString().slice(0, 10);
  const spent = async (model = 'gpt-chat') => (await memory.getCounters([`c:user:alice:${day}:${model}`]))[`c:user:alice:${day}:${model}`] ?? 0;
  const held = async () => (await memory.getHeld([`spend:daily:all:user:alice:${day}`]))[`spend:daily:all:user:alice:${day}`] ?? 0;
  const settled = () => new Promise((r) => setTimeout(r, 30));
  return { gateway, records, post, embed, spent, held, settled };
}

describe('usage an upstream reports beyond what the request could use', () => {
  it('is held to the request’s bounds: the charge stays within the reservation and the cap', async () => {
    const { gateway, post, spent, held, records } = await setup(() => ({ prompt_tokens: 10, completion_tokens: 1_000_000_000, total_tokens: 1 }));
    const answer = await post();
    expect(answer.status).toBe(200);
    const record = records[0]!;
    // Output held to max_completion_tokens (100 at $10/Mtok = 1,000 µ$); the prompt as reported (10 at $1/Mtok).
    expect(record.usage).toMatchObject({ input: 10, output: 100, measured: false });
    expect(record.cost_micros?.total).toBe(1010);
    expect(record.cost_micros!.total).toBeLessThanOrEqual(record.reserved_micros);
    expect(await spent()).toBe(1010);
    expect(await held()).toBe(0);
    expect(gateway.stats()).toMatchObject({ usageDistrusted: 1, usageUnpriced: 0, settleFailures: 0 });
  });

  it('a streamed report past exact arithmetic settles, without an unhandled rejection or a hold left renewed', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { gateway, post, spent, held, records, settled } = await setup(() => ({ prompt_tokens: 1e15, completion_tokens: 1e15, total_tokens: 1 }), {
        ttlMs: 200,
      });
      const answer = await post(true);
      expect(await answer.text()).toContain('hello');
      await settled();
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 'ok', usage: { output: 100, measured: false } });
      expect(records[0]!.cost_micros!.total).toBeLessThanOrEqual(records[0]!.reserved_micros);
      expect(await spent()).toBe(records[0]!.cost_micros!.total);
      // Several TTLs later nothing is held (a hold renewed forever would still count).
      await new Promise((r) => setTimeout(r, 700));
      expect(await held()).toBe(0);
      expect(gateway.stats()).toMatchObject({ usageDistrusted: 1, settleFailures: 0 });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('on a request whose cost is unbounded (allowed without a cap) an absurd report is held to a billion tokens a kind and priced exactly', async () => {
    const { gateway, post, records } = await setup(() => ({ prompt_tokens: 10, completion_tokens: 1e18, total_tokens: 1 }), { cap: false });
    // web_search_options: billed per search, so admission has no output bound to hold the report to.
    expect((await post(false, { web_search_options: {} })).status).toBe(200);
    expect(records[0]!.usage).toMatchObject({ output: 1_000_000_000, measured: false });
    expect(records[0]!.cost_micros?.total).toBe(10 + 10_000_000_000);
    expect(gateway.stats()).toMatchObject({ usageDistrusted: 1, usageUnpriced: 0 });
  });

  it('usage no exact price fits is charged the worst case admission sized, and counted', async () => {
    // $10M per million output tokens: a billion tokens cost 1e10 USD, 1e16 µ$, past 2^53
    // (admission's worst case, 100 tokens, is 1e9 µ$).
    const { gateway, post, spent, records } = await setup(() => ({ prompt_tokens: 10, completion_tokens: 1e12, total_tokens: 1 }), {
      cap: false,
      outputPrice: '10000000',
    });
    expect((await post(false, { web_search_options: {} })).status).toBe(200);
    expect(records[0]!.cost_micros).toBeNull();
    expect(records[0]!.decision!.worst_case_micros).toBeGreaterThan(1e9);
    expect(await spent()).toBe(records[0]!.decision!.worst_case_micros);
    expect(gateway.stats()).toMatchObject({ usageUnpriced: 1, settleFailures: 0 });
  });

  it('an embeddings report past the input’s bound is held to it', async () => {
    const { gateway, embed, records, spent } = await setup(() => ({ prompt_tokens: 5_000_000_000, total_tokens: 5_000_000_000 }));
    expect((await embed()).status).toBe(200);
    const usage = records[0]!.usage!;
    expect(usage.measured).toBe(false);
    expect(usage.input).toBeLessThan(1000);
    expect(usage.output).toBe(0);
    expect(await spent('emb')).toBe(records[0]!.cost_micros!.total);
    expect(records[0]!.cost_micros!.total).toBeLessThanOrEqual(records[0]!.reserved_micros);
    expect(gateway.stats().usageDistrusted).toBe(1);
  });
});

describe('honest usage where the prompt bound is an allowance, not a bound', () => {
  async function gemini(billed: number, options: { contextWindow?: number } = {}) {
    const { key, hash } = await createVirtualKey();
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: billingRegistry({ maxOutputTokens: 8000, ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }) }),
      policy: {
        spend: { rules: [{ id: 'daily', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] }] },
      },
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: async () =>
        Response.json({
          candidates: [{ content: { role: 'model', parts: [{ text: 'A summary.' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: billed, candidatesTokenCount: 3, totalTokenCount: billed + 3 },
        }),
      store: createMemoryStore({ sweepIntervalMs: 0 }),
      usage: (r) => void records.push(r),
    });
    gateways.push(gateway);
    const answer = await gateway.handle(
      new Request('http://gw/v1beta/models/gemini-x:generateContent', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'gs://bucket/lecture-1h.mp4' } }, { text: 'Summarize' }] }],
          generationConfig: { maxOutputTokens: 1000 },
        }),
      }),
    );
    return { gateway, records, status: answer.status };
  }

  it('a request on an hour of video is charged what the upstream billed, up to the model’s context window', async () => {
    // ~300 tokens a second of video: an hour is about 1.06M, far past the 200,000 a file is sized at.
    const { gateway, records, status } = await gemini(1_060_000, { contextWindow: 2_000_000 });
    expect(status).toBe(200);
    expect(records[0]!.usage).toMatchObject({ input: 1_060_000, measured: true });
    expect(gateway.stats().usageDistrusted).toBe(0);
  });

  it('past the context window it is held there', async () => {
    const { gateway, records } = await gemini(5_000_000, { contextWindow: 2_000_000 });
    expect(records[0]!.usage).toMatchObject({ input: 2_000_000, measured: false });
    expect(gateway.stats().usageDistrusted).toBe(1);
  });
});

describe('usage reported in a form that is not counts', () => {
  for (const [name, usage] of [
    ['counts as strings', { prompt_tokens: '10', completion_tokens: '100', total_tokens: '110' }],
    ['an empty usage object', {}],
    ['negative counts', { prompt_tokens: -5, completion_tokens: -100, total_tokens: -105 }],
  ] as const) {
    it(`${name}: charged the estimate, never $0 as if measured`, async () => {
      const { gateway, post, spent, records, settled } = await setup(() => usage);
      expect((await post()).status).toBe(200);
      const stream = await post(true);
      await stream.text();
      await settled();
      expect(records).toHaveLength(2);
      for (const record of records) {
        expect(record.usage!.measured).toBe(false);
        // The estimate: the prompt bound and at least one token of output.
        expect(record.usage!.input).toBeGreaterThan(0);
        expect(record.usage!.output).toBeGreaterThan(0);
        expect(record.cost_micros!.total).toBeGreaterThan(0);
      }
      expect(await spent()).toBe(records[0]!.cost_micros!.total + records[1]!.cost_micros!.total);
      expect(gateway.stats().usageDistrusted).toBe(2);
    });
  }

  it('honest usage is believed and counted as measured', async () => {
    const { gateway, post, records } = await setup(() => ({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 }));
    expect((await post()).status).toBe(200);
    expect(records[0]!.usage).toMatchObject({ input: 10, output: 3, measured: true });
    expect(records[0]!.cost_micros?.total).toBe(40);
    expect(gateway.stats()).toMatchObject({ usageDistrusted: 0, usageUnpriced: 0 });
  });
});
