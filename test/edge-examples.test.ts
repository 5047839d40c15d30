/**
 * The edge examples work as written: examples/edge-worker (a Worker module, called the way
 * Workers call it: fetch(request, env, ctx)) and examples/next-route (a Next.js route handler),
 * each with a real OpenAI SDK client. Upstream calls go to the global `fetch`, stubbed here with
 * recorded traffic, since the examples' registries name the vendors' real hosts.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createVirtualKey } from '@tollgate/core';
import { fixtureText } from './support/fixtures.js';

const upstreamCalls: Array<{ url: string; headers: Headers; body: Record<string, unknown> }> = [];

async function fakeVendor(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const body = (await request.json()) as Record<string, unknown>;
  upstreamCalls.push({ url: request.url, headers: request.headers, body });
  const sse = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const json = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  if (request.url === 'https://api.openai.com/v1/chat/completions') {
    return body.stream === true ? sse(fixtureText('openai-chat/stream-text.sse')) : json(fixtureText('openai-chat/response-text.json'));
  }
  if (request.url === 'https://api.anthropic.com/v1/messages') {
    return body.stream === true ? sse(fixtureText('anthropic-messages/stream-text.sse')) : json(fixtureText('anthropic-messages/response-cache-read.json'));
  }
  return new Response('unexpected upstream', { status: 599 });
}

let key: string;
let keys: string;
beforeAll(async () => {
  const created = await createVirtualKey();
  key = created.key;
  keys = JSON.stringify([{ hash: created.hash, principal: { user: 'alice', tier: 'normal' } }]);
  vi.stubGlobal('fetch', vi.fn(fakeVendor));
});
afterAll(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('examples/edge-worker', () => {
  it('serves OpenAI and Anthropic upstreams to an OpenAI SDK, with secrets from env and usage kept alive by ctx.waitUntil', async () => {
    const { default: worker } = await import('../examples/edge-worker/worker.js');
    const env = { OPENAI_API_KEY: 'sk-openai-from-env', ANTHROPIC_API_KEY: 'sk-ant-from-env', TOLLGATE_VIRTUAL_KEYS: keys };
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p) };
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const client = new OpenAI({
      apiKey: key,
      baseURL: 'https://tollgate.example.workers.dev/v1',
      maxRetries: 0,
      fetch: (url, init) => worker.fetch(new Request(url, init), env, ctx),
    });

    const stream = await client.chat.completions.create({ model: 'claude-sonnet-latest', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello');
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toMatch(/^Hi there!/);

    expect(upstreamCalls.map((c) => c.url)).toEqual(['https://api.anthropic.com/v1/messages', 'https://api.openai.com/v1/chat/completions']);
    expect(upstreamCalls[0]!.headers.get('x-api-key')).toBe('sk-ant-from-env');
    expect(upstreamCalls[1]!.headers.get('authorization')).toBe('Bearer sk-openai-from-env');
    expect(pending).toHaveLength(2);
    await Promise.all(pending);
    const records = logged.mock.calls.map((c) => JSON.parse(String(c[0])) as { status: string; model: string });
    expect(records.map((r) => [r.model, r.status])).toEqual([
      ['claude-sonnet', 'ok'],
      ['gpt-4o-mini', 'ok'],
    ]);
    logged.mockRestore();
  });
});

describe('examples/next-route', () => {
  it('is an edge route handler for POST and GET below /api/tollgate', async () => {
    vi.stubEnv('TOLLGATE_VIRTUAL_KEYS', keys);
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai-from-process-env');
    const route = await import('../examples/next-route/app/api/tollgate/[...path]/route.js');
    expect(route.runtime).toBe('edge');
    expect(route.POST).toBe(route.GET);
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const client = new OpenAI({
      apiKey: key,
      baseURL: 'https://app.example/api/tollgate/v1',
      maxRetries: 0,
      fetch: (url, init) => {
        const request = new Request(url, init);
        const handler = request.method === 'GET' ? route.GET : route.POST;
        return handler(request, { params: Promise.resolve({ path: new URL(request.url).pathname.split('/').slice(3) }) });
      },
    });
    const final = await client.chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toMatch(/^Hi there!/);
    expect(upstreamCalls.at(-1)!.headers.get('authorization')).toBe('Bearer sk-openai-from-process-env');
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o-mini']);
    logged.mockRestore();
  });
});
