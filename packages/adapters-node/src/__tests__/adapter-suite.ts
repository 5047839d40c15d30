/**
 * One suite run against each Node adapter (node:http, Express, Fastify): real servers on
 * 127.0.0.1:0, real SDK clients, a mock upstream replaying recorded traffic and a slow one
 * that reports when its connection closes.
 */
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from '../../../../test/support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from '../../../../test/support/mock-upstream.js';
import { eventually, startSlowUpstream, type SlowUpstream } from './slow-upstream.js';

export interface Served {
  /** Origin plus any mount path: the gateway's routes live under it. */
  url: string;
  close(): Promise<void>;
}

export const CAP = 64 * 1024;

/** How long the `late` upstream holds its first event. */
const LATE_MS = 400;

export interface AdapterHarness {
  gateway(): Gateway;
  served(): Served;
  key(): string;
  records: UsageRecord[];
}

/** A model served only by the slow upstream's `scenario` (an OpenAI Chat deployment). */
function slowUpstreamModel(scenario: string) {
  return {
    brand: 'openai',
    entry_formats: ['openai_chat'],
    capabilities: { max_output_tokens: 1000 },
    deployments: [
      {
        id: `${scenario}@openai`,
        provider: scenario,
        format: 'openai_chat',
        upstream_model: 'gpt-4o-mini',
        pricing: { unit: 'usd_per_mtok', input: '1', output: '1' },
      },
    ],
  };
}

/** A registry with the shared test models plus `slow-model` (endless) and `late-model` (a late first event) on the slow upstream. */
export function adapterRegistry(replayUrl: string, slowUrl: string) {
  const base = testRegistry(replayUrl);
  const scenarios = { slow: 'endless', late: 'late' };
  return {
    ...base,
    providers: {
      ...base.providers,
      ...Object.fromEntries(Object.entries(scenarios).map(([id, path]) => [id, { base_url: `${slowUrl}/${path}`, credential: 'openai' }])),
    },
    operations: [
      ...base.operations,
      ...Object.keys(scenarios).map((provider) => ({ provider, format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' })),
    ],
    models: { ...base.models, 'slow-model': slowUpstreamModel('slow'), 'late-model': slowUpstreamModel('late') },
  };
}

/** `extra`: more gateway options (e.g. the upstream `fetch`). */
export function describeAdapter(name: string, serve: (gateway: Gateway) => Promise<Served>, extra: Partial<GatewayOptions> = {}): AdapterHarness {
  let upstream: MockUpstream;
  let slow: SlowUpstream;
  let gateway: Gateway;
  let served: Served;
  let key: string;
  const records: UsageRecord[] = [];

  beforeAll(async () => {
    upstream = await startMockUpstream({
      anthropic: replay('anthropic-messages/stream-text-then-tool-use-input-json-delta.sse', 'anthropic-messages/response-cache-read.json'),
      openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
    });
    slow = await startSlowUpstream({ tickMs: 20, ticks: 3, lateMs: LATE_MS });
    const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
    key = ids.keys.alice!;
    gateway = createGateway({
      registry: adapterRegistry(upstream.url, slow.url) as RegistryFileInput,
      identity: ids.identity,
      secrets: SECRETS,
      usage: (r) => void records.push(r),
      maxRequestBytes: CAP,
      ...extra,
    });
    served = await serve(gateway);
  });

  afterAll(async () => {
    await served?.close();
    await gateway?.close({ drainMs: 1000 });
    await upstream?.close();
    await slow?.close();
  });

  const openai = () => new OpenAI({ apiKey: key, baseURL: `${served.url}/v1`, maxRetries: 0 });
  const recordFor = (id: string | null) => records.find((r) => r.request_id === id);

  describe(`${name}: real SDK clients through a real server`, () => {
    it('streams an OpenAI SDK call translated to an Anthropic upstream', async () => {
      const stream = openai().chat.completions.stream({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'What is the weather in San Francisco?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.finish_reason).toBe('tool_calls');
      const rec = records[records.length - 1]!;
      expect(rec).toMatchObject({ status: 'ok', entry_format: 'openai_chat', upstream_format: 'anthropic_messages', stream: true });
      expect(rec.usage?.measured).toBe(true);
    });

    it('streams an OpenAI SDK call to an OpenAI upstream, chunk by chunk', async () => {
      const stream = await openai().chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
      }
      expect(chunks).toBeGreaterThan(5);
      expect(text).toMatch(/^Hi there! How can I help/);
      expect(records[records.length - 1]!.status).toBe('ok');
    });

    it('answers a non-stream call and model discovery', async () => {
      const res = await openai().chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(res.choices[0]!.message.content).toBeTypeOf('string');
      const models = await openai().models.list();
      expect(models.data.map((m) => m.id)).toContain('claude-sonnet');
      // The caller's budget status is the gateway's too (not the app's 404).
      const budget = await fetch(`${served.url}/v1/tollgate/budget`, { headers: { authorization: `Bearer ${key}` } });
      expect(budget.status).toBe(200);
      expect(await budget.json()).toHaveProperty('limits');
    });

    it('streams an Anthropic SDK call translated to an OpenAI upstream', async () => {
      const client = new Anthropic({ apiKey: key, baseURL: served.url, maxRetries: 0 });
      const message = await client.messages.stream({ model: 'gpt-mini', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      expect(message.content[0]).toMatchObject({ type: 'text' });
      expect((message.content[0] as { text: string }).text).toMatch(/^Hi there!/);
      expect(records[records.length - 1]).toMatchObject({ status: 'ok', entry_format: 'anthropic_messages', upstream_format: 'openai_chat' });
    });

    it('aborts the upstream call when the client disconnects mid-stream, and records it as cancelled', async () => {
      const before = slow.calls.length;
      const controller = new AbortController();
      const { data: stream, response } = await openai()
        .chat.completions.create({ model: 'slow-model', messages: [{ role: 'user', content: 'count' }], stream: true }, { signal: controller.signal })
        .withResponse();
      const requestId = response.headers.get('x-tollgate-request-id');
      let seen = 0;
      // The SDK ends the iteration quietly when its own signal aborts.
      await (async () => {
        for await (const _ of stream) if (++seen === 3) controller.abort();
      })().catch(() => {});
      expect(seen).toBe(3);
      const call = slow.calls[before]!;
      await Promise.race([call.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 3000))]);
      expect(call.cut).toBe(true);
      const sentAtClose = call.sent;
      await new Promise((r) => setTimeout(r, 100));
      expect(call.sent).toBe(sentAtClose);
      const rec = await eventually(() => recordFor(requestId));
      expect(rec.status).toBe('cancelled');
      expect(rec.reason).toBe('client_cancelled');
      expect(rec.usage?.measured).toBe(false);
    });

    it('sends an event stream’s head without waiting for a late first event, then the events', async () => {
      const started = Date.now();
      const response = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'late-model', messages: [{ role: 'user', content: 'wait' }], stream: true }),
      });
      const headAfter = Date.now() - started;
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('x-tollgate-request-id')).toMatch(/.+/);
      // The upstream holds its first event for LATE_MS; the head must not wait for it.
      expect(headAfter).toBeLessThan(LATE_MS / 2);
      const text = await response.text();
      expect(Date.now() - started).toBeGreaterThanOrEqual(LATE_MS - 50);
      expect(text).toContain('tick2');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    });

    it('keeps a kept-alive connection usable after a refusal that left the body unread, and after a body read whole', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const send = (auth: string, model: string) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'x'.repeat(20_000) }] });
          const req = httpRequest(
            `${served.url}/v1/chat/completions`,
            {
              method: 'POST',
              agent,
              timeout: 5000,
              headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            },
          );
          req.on('timeout', () => req.destroy(new Error('no answer: the connection stalled')));
          req.on('error', reject);
          req.end(body);
        });
      try {
        expect((await send('tg_not-a-key', 'gpt-mini')).status).toBe(401);
        expect((await send(key, 'gpt-mini')).status).toBe(200);
        expect((await send('tg_not-a-key', 'gpt-mini')).status).toBe(401);
        expect((await send(key, 'gpt-mini')).status).toBe(200);
      } finally {
        agent.destroy();
      }
    });

    it('closes the connection after refusing a large body it did not read, rather than reading the rest', async () => {
      const url = new URL(served.url);
      const socket = connect(Number(url.port), url.hostname);
      const declared = 8 * 1024 * 1024;
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      const ended = new Promise<boolean>((resolve) => {
        socket.on('close', () => resolve(true));
        setTimeout(() => resolve(false), 3000);
      });
      socket.on('error', () => {});
      const head = `POST ${url.pathname.replace(/\/$/, '')}/v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer tg_not-a-key-at-all-not-a-key-at-all\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`;
      socket.write(head + '{"model":"gpt-mini","messages":[{"role":"user","content":"' + 'x'.repeat(64 * 1024));
      // The client never sends the other ~8 MB: the server answers and hangs up without them.
      expect(await ended).toBe(true);
      socket.destroy();
      expect(received).toMatch(/^HTTP\/1\.1 401/);
      expect(received.toLowerCase()).toContain('connection: close');
    });

    it('answers a whole body with its length, the governance headers and the caller’s error format', async () => {
      const ok = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = await ok.text();
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('application/json');
      expect(Number(ok.headers.get('content-length'))).toBe(Buffer.byteLength(body));
      expect(ok.headers.get('x-tollgate-unclassified-fields')).toBe('0');
      const id = ok.headers.get('x-tollgate-request-id');
      expect((await eventually(() => recordFor(id))).status).toBe('ok');
      const denied = await fetch(`${served.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'tg_not-a-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      expect(denied.headers.get('x-tollgate-request-id')).toMatch(/.+/);
    });

    it('refuses a body over the cap with 413 in the caller’s format (declared length)', async () => {
      const big = JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'x'.repeat(CAP + 10) }] });
      const res = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: big,
      });
      expect(res.status).toBe(413);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/larger than/);
      const rec = await eventually(() => recordFor(res.headers.get('x-tollgate-request-id')));
      expect(rec).toMatchObject({ status: 'rejected', reason: 'request_too_large', http_status: 413 });
    });

    it('refuses a chunked body over the cap with 413 while streaming it', async () => {
      const piece = new TextEncoder().encode('x'.repeat(16 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"model":"gpt-mini","messages":[{"role":"user","content":"'));
          if (sent++ < 8) controller.enqueue(piece);
          else {
            controller.enqueue(new TextEncoder().encode('"}]}'));
            controller.close();
          }
        },
      });
      const res = await fetch(`${served.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      const error = (await res.json()) as { type: string; error: { type: string } };
      expect(error.type).toBe('error'); // Anthropic-shaped
      expect(error.error.type).toBe('request_too_large');
    });
  });

  return {
    gateway: () => gateway,
    served: () => served,
    key: () => key,
    records,
  };
}
