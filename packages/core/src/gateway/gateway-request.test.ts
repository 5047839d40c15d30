import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, takeChunks, type Gateway, type GatewayReply, type GatewayRequest, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { anthropicUpstream, registry } from './__tests__/anthropic-upstream.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

async function gatewayWithKey(maxRequestBytes?: number) {
  const { key, hash } = await createVirtualKey();
  const upstream = anthropicUpstream();
  const records: UsageRecord[] = [];
  let gate: Promise<void> | null = null;
  const gateway = createGateway({
    registry: registry(),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
    fetch: async (url, init) => {
      if (gate !== null) await gate;
      return upstream.fetch(url, init);
    },
    usage: (r) => void records.push(r),
    ...(maxRequestBytes === undefined ? {} : { maxRequestBytes }),
  });
  open.push(gateway);
  /** Upstream calls from now on wait until the returned function is called. */
  const hold = (): (() => void) => {
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    return release;
  };
  return { gateway, key, upstream, records, hold };
}

const encoder = new TextEncoder();

function plain(key: string, body: GatewayRequest['body'], signal = new AbortController().signal): GatewayRequest {
  return {
    method: 'POST',
    url: 'http://gateway.test/v1/chat/completions',
    headers: new Headers({ authorization: `Bearer ${key}`, 'content-type': 'application/json' }),
    signal,
    body,
  };
}

const chatBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('gateway.handle with a plain request object (what server adapters pass instead of a Fetch Request)', () => {
  it('serves a body given as bytes, translated, priced and recorded like a Request', async () => {
    const { gateway, key, upstream, records } = await gatewayWithKey();
    const response = await gateway.handle(plain(key, encoder.encode(chatBody())));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hello from Claude' } }] });
    expect(upstream.seen[0]!.body).toMatchObject({ model: 'claude-sonnet-4-5' });
    expect(records[0]).toMatchObject({ status: 'ok', entry_format: 'openai_chat', upstream_format: 'anthropic_messages' });
    expect(records[0]!.cost_micros!.total).toBeGreaterThan(0);
  });

  it('streams with a body given as a stream, and the answer is an OpenAI event stream', async () => {
    const { gateway, key } = await gatewayWithKey();
    const bytes = encoder.encode(chatBody({ stream: true }));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 10));
        c.enqueue(bytes.subarray(10));
        c.close();
      },
    });
    const response = await gateway.handle(plain(key, body));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text).toContain('"Hello from"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('refuses bytes over the cap with 413, and an unknown key with 401, in the caller’s format', async () => {
    const { gateway, key, upstream } = await gatewayWithKey(64);
    const big = await gateway.handle(plain(key, encoder.encode(chatBody({ user: 'x'.repeat(100) }))));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    const denied = await gateway.handle(plain('tg_not-a-key', encoder.encode(chatBody())));
    expect(denied.status).toBe(401);
    expect(upstream.seen).toHaveLength(0);
  });
});

describe('gateway.reply: the answer as a plain reply, for server adapters that write their own socket', () => {
  it('gives a whole body as JSON text with lowercase headers, the same answer handle gives as a Response', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody())));
    expect(reply.status).toBe(200);
    expect(typeof reply.body).toBe('string');
    expect(JSON.parse(reply.body as string)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hello from Claude' } }] });
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['x-tollgate-request-id']).toBe(records[0]!.request_id);
    for (const name of Object.keys(reply.headers)) expect(name).toBe(name.toLowerCase());
    const response = await gateway.handle(plain(key, encoder.encode(chatBody())));
    expect(response.headers.get('x-tollgate-request-id')).toBe(records[1]!.request_id);
    expect(await response.json()).toMatchObject({ object: 'chat.completion' });
  });

  it('gives an event stream as a byte stream whose end writes the record', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    expect(reply.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(reply.body).toBeInstanceOf(ReadableStream);
    expect(records).toHaveLength(0);
    const text = await new Response(reply.body as ReadableStream<Uint8Array>).text();
    expect(text).toContain('"Hello from"');
    await gateway.close({ drainMs: 1000 });
    expect(records[0]).toMatchObject({ status: 'ok', stream: true, request_id: reply.headers['x-tollgate-request-id'] });
  });

  it('gives an event stream as chunks to an adapter that takes them, the same bytes, and only once', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const viaStream = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    const streamed = await new Response(viaStream.body as ReadableStream<Uint8Array>).text();
    // Once the body was asked for, the chunks are not handed out as well.
    expect(takeChunks(viaStream)).toBeUndefined();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    const chunks = takeChunks(reply);
    expect(chunks).toBeDefined();
    expect(takeChunks(reply)).toBeUndefined();
    const decoder = new TextDecoder();
    let text = '';
    for (let next = await chunks!.next(); next.done !== true; next = await chunks!.next()) text += decoder.decode(next.value, { stream: true });
    const strip = (t: string) => t.replace(/"(id|created)":("[^"]*"|\d+)/g, '');
    expect(strip(text)).toBe(strip(streamed));
    await gateway.close({ drainMs: 1000 });
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('an adapter that stops reading the chunks early cancels the upstream, and the record says cancelled', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    const chunks = takeChunks(reply)!;
    expect((await chunks.next()).done).toBe(false);
    await chunks.return!();
    await gateway.close({ drainMs: 1000 });
    expect(records[0]).toMatchObject({ status: 'cancelled', reason: 'client_cancelled', stream: true });
  });

  it('a client that leaves while a whole answer is being read is recorded as cancelled, not as a bad upstream answer', async () => {
    const { key, hash } = await createVirtualKey();
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: registry(),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
      // Half an answer, then silence; the call's signal cuts the body, as a transport does.
      fetch: async (_url, init) => ({
        status: 200,
        headers: new Headers({ 'content-type': 'application/json' }),
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('{"id":"msg_1","type":"message",'));
            init.signal?.addEventListener('abort', () => controller.error(init.signal!.reason), { once: true });
          },
        }),
      }),
      usage: (r) => void records.push(r),
    });
    open.push(gateway);
    const controller = new AbortController();
    const pending = gateway.reply(plain(key, encoder.encode(chatBody()), controller.signal));
    await new Promise((r) => setTimeout(r, 20));
    controller.abort(new Error('client went away'));
    const reply = await pending;
    expect(reply.status).toBe(499);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'cancelled', reason: 'client_cancelled', stream: false });
  });

  it('a stream reply copied or serialized before an adapter looks falls back to its body, the same bytes', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    const copy = { ...reply };
    expect(takeChunks(reply)).toBeUndefined();
    expect(takeChunks(copy)).toBeUndefined();
    expect(copy.body).toBe(reply.body);
    expect(await new Response(copy.body as ReadableStream<Uint8Array>).text()).toContain('[DONE]');
    await gateway.close({ drainMs: 1000 });
    expect(records.map((r) => r.status)).toEqual(['ok']);
  });

  it('a stream reply behind a Proxy or inherited from gives the same body and chunks (wrappers keep working)', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const proxied = new Proxy(await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true })))), {});
    const chunks = takeChunks(proxied)!;
    let text = '';
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) text += new TextDecoder().decode(next.value);
    expect(text).toContain('[DONE]');
    expect(proxied.body).toBeNull();
    const inherited = Object.create(await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))))) as GatewayReply;
    expect(await new Response(inherited.body as ReadableStream<Uint8Array>).text()).toContain('[DONE]');
    expect(Object.getPrototypeOf(Object.getPrototypeOf(inherited))).toBe(Object.prototype);
    await gateway.close({ drainMs: 1000 });
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('once the chunks are taken the body is none (no second reader), and a wrapper may still replace the body', async () => {
    const { gateway, key } = await gatewayWithKey();
    const taken = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))));
    const chunks = takeChunks(taken)!;
    expect((await chunks.next()).done).toBe(false);
    expect(taken.body).toBeNull();
    await chunks.return!();
    const replaced = (await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))))) as { body: unknown };
    const original = replaced.body as ReadableStream<Uint8Array>;
    replaced.body = 'replaced';
    expect(replaced.body).toBe('replaced');
    expect(takeChunks(replaced as GatewayReply)).toBeUndefined();
    await original.cancel();
  });

  it('renders a refusal in the caller’s format, with the request id', async () => {
    const { gateway } = await gatewayWithKey();
    const anthropic = await gateway.reply({
      method: 'POST',
      url: 'http://gateway.test/v1/messages',
      headers: new Headers({ 'x-api-key': 'tg_not-a-key', 'content-type': 'application/json' }),
      signal: new AbortController().signal,
      body: encoder.encode('{}'),
    });
    expect(anthropic.status).toBe(401);
    expect(JSON.parse(anthropic.body as string)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(anthropic.headers['x-tollgate-request-id']).toMatch(/.+/);
  });
});

describe('gateway.reply with defer: settling and recording a whole answer after it is on its way', () => {
  it('hands the work to defer instead of doing it first; running it settles and records once', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const deferred: Array<() => Promise<void>> = [];
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody())), { defer: (work) => void deferred.push(work) });
    expect(reply.status).toBe(200);
    expect(deferred).toHaveLength(1);
    expect(records).toHaveLength(0);
    await deferred[0]!();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'ok', request_id: reply.headers['x-tollgate-request-id'], http_status: 200 });
    expect(records[0]!.cost_micros!.total).toBeGreaterThan(0);
    // Without defer the record exists when reply resolves.
    await gateway.reply(plain(key, encoder.encode(chatBody())));
    expect(records).toHaveLength(2);
  });

  it('close() waits for deferred work under way, and runs work nobody ran; running it again does nothing', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const works: Array<() => Promise<void>> = [];
    await gateway.reply(plain(key, encoder.encode(chatBody())), { defer: (w) => void works.push(w) });
    await gateway.reply(plain(key, encoder.encode(chatBody())), { defer: (w) => void works.push(w) });
    const running = works[0]!();
    const started = Date.now();
    await gateway.close({ drainMs: 5000 });
    expect(Date.now() - started).toBeLessThan(2000);
    await running;
    expect(records).toHaveLength(2);
    await works[1]!();
    await works[0]!();
    expect(records).toHaveLength(2);
  });

  it('work handed over after close() began is done before close() resolves (a request under way when it was called)', async () => {
    const { gateway, key, records, hold } = await gatewayWithKey();
    // An open stream keeps close() waiting.
    const chunks = takeChunks(await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true })))))!;
    await chunks.next();
    const release = hold();
    const works: Array<() => Promise<void>> = [];
    const pending = gateway.reply(plain(key, encoder.encode(chatBody())), { defer: (w) => void works.push(w) });
    const closing = gateway.close({ drainMs: 5000 });
    release();
    expect((await pending).status).toBe(200);
    expect(works).toHaveLength(1);
    while (!(await chunks.next()).done);
    await closing;
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('close() waits for a call under way (no stream open): it is answered and recorded before close() resolves', async () => {
    const { gateway, key, records, hold } = await gatewayWithKey();
    const release = hold();
    const pending = gateway.reply(plain(key, encoder.encode(chatBody())));
    await new Promise((r) => setTimeout(r, 10));
    let closed = false;
    const closing = gateway.close({ drainMs: 5000 }).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    // New calls are refused meanwhile.
    expect((await gateway.reply(plain(key, encoder.encode(chatBody())))).status).toBe(503);
    release();
    expect((await pending).status).toBe(200);
    await closing;
    expect(records.map((r) => r.status)).toContain('ok');
  });

  it('a defer that throws does not take the work: the answer stands and the record is written', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody())), {
      defer: () => {
        throw new Error('no queue here');
      },
    });
    expect(reply.status).toBe(200);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'ok', http_status: 200 });
  });

  it('refusals and streams do not defer: their records are written as before', async () => {
    const { gateway, key, records } = await gatewayWithKey();
    const deferred: Array<() => Promise<void>> = [];
    const defer = (work: () => Promise<void>) => void deferred.push(work);
    const denied = await gateway.reply(plain('tg_not-a-key', encoder.encode(chatBody())), { defer });
    expect(denied.status).toBe(401);
    expect(records).toHaveLength(1);
    const stream = await gateway.reply(plain(key, encoder.encode(chatBody({ stream: true }))), { defer });
    await new Response(stream.body as ReadableStream<Uint8Array>).text();
    await gateway.close({ drainMs: 1000 });
    expect(records).toHaveLength(2);
    expect(deferred).toHaveLength(0);
  });
});

describe('governance headers carry any rule id', () => {
  it('percent-encodes a rule id beyond printable ASCII, so handle() and reply() both answer', async () => {
    const { key, hash } = await createVirtualKey();
    const upstream = anthropicUpstream();
    const gateway = createGateway({
      registry: registry(),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
      policy: {
        spend: { rules: [{ id: '月予算', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000' }, actions: [{ type: 'block' }] }] }] },
      },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
      fetch: upstream.fetch,
    });
    open.push(gateway);
    const response = await gateway.handle(plain(key, encoder.encode(chatBody())));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-tollgate-budget-rule')).toBe(encodeURIComponent('月予算'));
    const reply = await gateway.reply(plain(key, encoder.encode(chatBody())));
    expect(reply.headers['x-tollgate-budget-rule']).toBe('%E6%9C%88%E4%BA%88%E7%AE%97');
  });
});
