import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
/** alice's key, per gateway, for tests that send raw text. */
const KEYS = new WeakMap<Gateway, string>();
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** alice has a daily hard cap of `usd` on every model; bob has none. */
async function setup(usd = '1', registryOptions: Parameters<typeof billingRegistry>[0] = {}) {
  const alice = await createVirtualKey();
  const bob = await createVirtualKey();
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const store = createMemoryStore();
  const gateway: Gateway = createGateway({
    registry: billingRegistry(registryOptions),
    policy: {
      spend: {
        rules: [
          { id: 'alice-daily', matches: [{ match: { users: ['alice'], scope: 'all', window: 'daily', at_or_above_usd: usd }, actions: [{ type: 'block' }] }] },
        ],
      },
    },
    identity: {
      virtual_keys: [
        { hash: alice.hash, principal: { user: 'alice' } },
        { hash: bob.hash, principal: { user: 'bob' } },
      ],
    },
    secrets: { UPSTREAM_KEY: 'sk-up' },
    fetch: upstream.fetch,
    store,
    usage: (r) => void records.push(r),
  });
  open.push(store, gateway);
  KEYS.set(gateway, alice.key);
  const keys = { alice: alice.key, bob: bob.key };
  const post = async (who: keyof typeof keys, path: string, body: unknown) => {
    const res = await gateway.handle(
      new Request(`http://gw${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[who]}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const spent = async () =>
    Object.values(await store.getCounters([`c:user:alice:${new Date().toISOString().slice(0, 10)}:gpt-chat`])).reduce((a, b) => a + b, 0);
  return { gateway, upstream, records, post, spent };
}

const chat = (extra: Record<string, unknown>) => ({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hello' }], ...extra });

describe('fields that multiply what the upstream bills are part of the worst case', () => {
  it('refuses n: 128 under a $1 cap before any upstream call (it would bill $1.28)', async () => {
    const { post, upstream, records } = await setup('1');
    const res = await post('alice', '/v1/chat/completions', chat({ n: 128, max_completion_tokens: 1000 }));
    expect(res.status).toBe(429);
    expect(upstream.state.calls).toBe(0);
    expect(upstream.state.billedMicros).toBe(0);
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'spend_limit:alice-daily' });
  });

  it('keeps n: 2 working, returning both choices, with a reservation that covers both', async () => {
    const { post, upstream, records } = await setup('1');
    const res = await post('alice', '/v1/chat/completions', chat({ n: 2, max_completion_tokens: 1000 }));
    expect(res.status).toBe(200);
    expect(res.body.choices).toHaveLength(2);
    expect(upstream.state.bodies[0]).toMatchObject({ n: 2 });
    const record = records[0]!;
    expect(record.cost_micros!.total).toBe(upstream.state.billedMicros);
    expect(record.reserved_micros).toBeGreaterThanOrEqual(record.cost_micros!.total);
  });

  it('keeps recorded and billed spend under the cap however the calls are shaped', async () => {
    const { post, upstream, spent } = await setup('0.1');
    for (const n of [5, 5, 5, 2, 1]) await post('alice', '/v1/chat/completions', chat({ n, max_completion_tokens: 900 }));
    expect(upstream.state.calls).toBeGreaterThan(0);
    expect(upstream.state.billedMicros).toBeLessThanOrEqual(100_000);
    expect(await spent()).toBe(upstream.state.billedMicros);
  });

  it('multiplies Gemini output by generationConfig.candidateCount', async () => {
    const { post, upstream } = await setup('1');
    const body = (n: number) => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: n, maxOutputTokens: 4000 } });
    expect((await post('alice', '/v1beta/models/gemini-x:generateContent', body(30))).status).toBe(429);
    expect(upstream.state.calls).toBe(0);
    const two = await post('alice', '/v1beta/models/gemini-x:generateContent', body(2));
    expect(two.status).toBe(200);
    expect(two.body.candidates).toHaveLength(2);
  });

  it('sizes content the canonical request does not carry but the upstream reads (a custom tool’s text)', async () => {
    const { post, upstream } = await setup('0.3');
    // 500 KB of tool description: the upstream reads ~500k tokens ($0.50 at $1/Mtok).
    const res = await post(
      'alice',
      '/v1/chat/completions',
      chat({ max_completion_tokens: 10, tools: [{ type: 'custom', custom: { name: 'x', description: 'y'.repeat(500_000) } }] }),
    );
    expect(res.status).toBe(429);
    expect(upstream.state.calls).toBe(0);
  });
});

describe('a field the gateway cannot bound is refused for a capped caller, with a 400 naming it', () => {
  it('refuses a Responses built-in tool for alice and forwards it for bob', async () => {
    const { post, upstream, records } = await setup('1');
    const body = { model: 'gpt-resp', input: 'news?', max_output_tokens: 100, tools: [{ type: 'web_search_preview' }] };
    const refused = await post('alice', '/v1/responses', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'tools.web_search_preview' });
    expect(refused.body.error.message).toContain('tools.web_search_preview');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'unbounded_cost:tools.web_search_preview' });
    expect(upstream.state.calls).toBe(0);
    expect((await post('bob', '/v1/responses', body)).status).toBe(200);
    expect(upstream.state.bodies[0]).toMatchObject({ tools: [{ type: 'web_search_preview' }] });
  });

  it('refuses Anthropic MCP servers and server tools, Chat audio output, and a malformed n, for a capped caller', async () => {
    const { post, upstream } = await setup('1');
    const claude = (extra: Record<string, unknown>) => ({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra });
    const mcp = await post('alice', '/v1/messages', claude({ mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] }));
    expect(mcp.status).toBe(400);
    expect(mcp.body.error.message).toContain("'mcp_servers'");
    const search = await post('alice', '/v1/messages', claude({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }));
    expect(search.status).toBe(400);
    expect(search.body.error.message).toContain('tools.web_search_20250305');
    expect((await post('alice', '/v1/chat/completions', chat({ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }))).status).toBe(400);
    expect((await post('alice', '/v1/chat/completions', chat({ n: 'many' }))).status).toBe(400);
    expect(upstream.state.calls).toBe(0);
    // A client-run Anthropic tool is bounded (a fixed prompt): it goes through.
    expect((await post('alice', '/v1/messages', claude({ tools: [{ type: 'bash_20250124', name: 'bash' }] }))).status).toBe(200);
  });

  it('bounds stored input (previous_response_id) by the model’s context window, and refuses it without one', async () => {
    const withWindow = await setup('0.05', { contextWindow: 100_000 });
    const body = { model: 'gpt-resp', input: 'go on', max_output_tokens: 100, previous_response_id: 'resp_123' };
    // 100,000 prompt tokens at $1/Mtok: $0.10 reserved, over a $0.05 cap.
    expect((await withWindow.post('alice', '/v1/responses', body)).status).toBe(429);
    const roomy = await setup('1', { contextWindow: 100_000 });
    expect((await roomy.post('alice', '/v1/responses', body)).status).toBe(200);
    expect(roomy.records[0]!.reserved_micros).toBeGreaterThanOrEqual(100_000);
    const without = await setup('1');
    const refused = await without.post('alice', '/v1/responses', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('previous_response_id');
  });
});

describe('the bytes priced are the bytes sent', () => {
  it('refuses a body that gives a sized key twice (the upstream may read the other value), naming it', async () => {
    const { gateway, upstream, records } = await setup('1');
    const send = async (text: string, path = '/v1/chat/completions') => {
      const res = await gateway.handle(
        new Request(`http://gw${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEYS.get(gateway)!}`, 'content-type': 'application/json' },
          body: text,
        }),
      );
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const twice = await send('{"model":"gpt-chat","max_completion_tokens":100000,"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":10}');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ type: 'invalid_request_error', param: 'max_completion_tokens' });
    const model = await send('{"model":"gpt-resp","messages":[{"role":"user","content":"hi"}],"model":"gpt-chat"}');
    expect(model.status).toBe(400);
    expect(model.body.error.param).toBe('model');
    const nested = await send('{"model":"gpt-chat","messages":[{"role":"user","content":"hi","content":"' + 'x'.repeat(100) + '"}]}');
    expect(nested.body.error.param).toBe('messages[0].content');
    // Gemini reads `max_output_tokens` and `maxOutputTokens` as one field.
    const gemini = await send(
      '{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":10,"max_output_tokens":4000}}',
      '/v1beta/models/gemini-x:generateContent',
    );
    expect(gemini.status).toBe(400);
    expect(gemini.body.error.message).toContain('generationConfig.max_output_tokens');
    expect(upstream.state.calls).toBe(0);
    expect(records.map((r) => r.reason)).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'invalid_request']);
  });

  it('sizes the larger of max_tokens and max_completion_tokens when a Chat client sends both', async () => {
    const { post, upstream } = await setup('0.5');
    // 100,000 output tokens at $10/Mtok: $1, over the cap, whichever the upstream honours.
    expect((await post('alice', '/v1/chat/completions', chat({ max_completion_tokens: 10, max_tokens: 100_000 }))).status).toBe(429);
    expect(upstream.state.calls).toBe(0);
  });
});
