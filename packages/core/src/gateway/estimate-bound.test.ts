import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

const encoder = new TextEncoder();

describe('the estimate of a stream cut before its usage', () => {
  it('never charges more output than the request allowed, so the cap holds', async () => {
    // $10 per Mtok out: 100 output tokens are 1,000 µ$. Cap 3,000 µ$.
    const policy = {
      spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.003' }, actions: [{ type: 'block' }] }] }] },
    } satisfies PolicyFileInput;
    const { key, hash } = await createVirtualKey();
    const records: UsageRecord[] = [];
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream' };
    // 100 tokens of 16 spaces each (one token apiece in the GPT encodings): 1,600 bytes, then
    // the stream stalls before its usage chunk.
    const text = ' '.repeat(16 * 100);
    const gateway = createGateway({
      registry: billingRegistry(),
      policy,
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: async (_url: RequestInfo | URL, init?: RequestInit) =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(
                encoder.encode(
                  `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n`,
                ),
              );
              init?.signal?.addEventListener('abort', () => controller.error(init.signal!.reason), { once: true });
            },
          }),
          { status: 200, headers: { 'content-type': 'text/event-stream' } },
        ),
      store,
      usage: (r) => void records.push(r),
    });
    open.push(store, gateway);
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100, stream: true }),
      }),
    );
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await gateway.close({ drainMs: 1000 });
    expect(records[0]).toMatchObject({ status: 'cancelled', reason: 'client_cancelled' });
    const reserved = records[0]!.decision!.worst_case_micros;
    const month = new Date().toISOString().slice(0, 7);
    const spent = (await store.getCounters([`c:user:alice:${month}:gpt-chat`]))[`c:user:alice:${month}:gpt-chat`]!;
    // What the upstream can bill for this request is at most its worst case: so is the estimate.
    expect(records[0]!.usage?.output).toBeLessThanOrEqual(100);
    expect(spent).toBeLessThanOrEqual(reserved);
    expect(spent).toBeLessThanOrEqual(3_000);
  });
});
