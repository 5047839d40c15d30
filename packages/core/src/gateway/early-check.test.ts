import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type GatewayRequest, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

const encoder = new TextEncoder();

/** A body of `total` bytes produced on demand, counting what the gateway pulled. */
function countedBody(total: number, valid = true) {
  const state = { pulled: 0 };
  const head = encoder.encode(valid ? '{"model":"gpt-chat","messages":[{"role":"user","content":"' : '{"model": not json ');
  const tail = encoder.encode('"}]}');
  const piece = encoder.encode('x'.repeat(64 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = sent === 0 ? head : sent + piece.byteLength + tail.byteLength >= total ? tail : piece;
      sent += chunk.byteLength;
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
      if (chunk === tail) controller.close();
    },
  });
  return { body, state };
}

async function setup(policy: PolicyFileInput) {
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
  const send = async (body: GatewayRequest['body'], length?: number, path = '/v1/chat/completions') => {
    const headers = new Headers({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    if (length !== undefined) headers.set('content-length', String(length));
    const res = await gateway.handle({ method: 'POST', url: `http://gw${path}`, headers, signal: new AbortController().signal, body });
    return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
  };
  /** Spend `micros` on gpt-chat today, as settled calls would have. */
  const spend = (micros: number, model = 'gpt-chat') =>
    store.settle({
      id: `earlier-${model}-${micros}`,
      charges: [{ counter: `c:user:alice:${new Date().toISOString().slice(0, 10)}:${model}`, amount: micros }],
    });
  return { send, spend, records, upstream };
}

const cap = (usd: string): PolicyFileInput => ({
  spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: usd }, actions: [{ type: 'block' }] }] }] },
});
const MB = 1024 * 1024;

describe('a large body is checked against limits before it is read and parsed', () => {
  it('refuses a capped key’s 30 MB body at once when its cap is reached on every model, without reading it', async () => {
    const { send, spend, records, upstream } = await setup(cap('1'));
    await spend(1_000_000);
    const { body, state } = countedBody(30 * MB);
    const res = await send(body, 30 * MB);
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(state.pulled).toBeLessThan(MB);
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'spend_limit:cap' });
    expect(upstream.state.calls).toBe(0);
  });

  it('refuses a large body when the request-rate window is full, naming the limit', async () => {
    const { send } = await setup({ rate_limits: [{ id: 'rpm', rpm: 1 }] });
    expect((await send(encoder.encode('{"model":"gpt-chat","max_completion_tokens":5,"messages":[{"role":"user","content":"hi"}]}'))).status).toBe(200);
    const { body, state } = countedBody(8 * MB);
    const res = await send(body, 8 * MB);
    expect(res.status).toBe(429);
    expect(res.body.error.type).toBe('requests');
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(state.pulled).toBeLessThan(MB);
  });

  it('refuses a large chunked body before parsing it (its broken JSON never gets a 400)', async () => {
    const { send, spend } = await setup(cap('1'));
    await spend(1_000_000);
    const { body } = countedBody(2 * MB, false);
    expect((await send(body)).status).toBe(429);
  });

  it('serves a large body as usual when nothing refuses it whatever it holds', async () => {
    const { send, spend } = await setup(cap('100'));
    await spend(1_000);
    const { body, state } = countedBody(2 * MB);
    const res = await send(body, undefined);
    expect(res.status).toBe(200);
    expect(state.pulled).toBeGreaterThanOrEqual(2 * MB - 64 * 1024);
  });

  it('does not refuse early when only some models are capped: the body may name another', async () => {
    const { send, spend } = await setup({
      spend: { rules: [{ id: 'chat', matches: [{ match: { scope: 'gpt-chat', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] }] },
    });
    await spend(1_000_000);
    const { body, state } = countedBody(2 * MB);
    // The body names gpt-chat: refused, but only once read and parsed.
    expect((await send(body, undefined)).status).toBe(429);
    expect(state.pulled).toBeGreaterThanOrEqual(2 * MB - 64 * 1024);
  });

  it('knows the model from a Gemini URL: a cap reached on that model alone refuses early, another model’s does not', async () => {
    const { send, spend } = await setup({
      spend: { rules: [{ id: 'gem', matches: [{ match: { scope: 'gemini-x', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] }] },
    });
    await spend(1_000_000, 'gemini-x');
    const refused = countedBody(4 * MB);
    expect((await send(refused.body, 4 * MB, '/v1beta/models/gemini-x:generateContent')).status).toBe(429);
    expect(refused.state.pulled).toBeLessThan(MB);
    const other = countedBody(4 * MB);
    // gpt-chat is not capped: read and served.
    expect((await send(other.body, 4 * MB)).status).toBe(200);
    expect(other.state.pulled).toBeGreaterThanOrEqual(4 * MB - 64 * 1024);
  });
});
