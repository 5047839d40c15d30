import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAdapter } from '../__tests__/adapter-suite.js';
import { listen, post, startScriptedUpstream, type ScriptedUpstream } from '../__tests__/scripted-upstream.js';
import { toNodeListener } from './listener.js';
import { createNodeFetch } from './upstream.js';

let up: ScriptedUpstream;
beforeAll(async () => {
  up = await startScriptedUpstream();
});
afterAll(() => up.close());

describe('createNodeFetch: a fetch over the transport’s undici connections', () => {
  const nodeFetch = createNodeFetch();
  afterAll(() => nodeFetch.close());

  it('sends method, headers and body, and answers with status, headers and body like fetch', async () => {
    const res = await nodeFetch(`${up.origin}/json`, post(new TextEncoder().encode('{"a":1}')));
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-extra')).toBe('one');
    expect(await res.json()).toEqual({ echo: '{"a":1}' });
    const last = up.seen[up.seen.length - 1]!;
    expect(last).toMatchObject({ method: 'POST', url: '/json', body: '{"a":1}' });
    expect(last.headers.authorization).toBe('Bearer upstream-secret');
    expect(last.headers['content-length']).toBe('7');
    expect(last.headers.host).toBe(new URL(up.origin).host);
  });

  it('keeps repeated set-cookie values apart', async () => {
    const res = await nodeFetch(`${up.origin}/cookies`, post('{}'));
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('reuses one kept-alive connection for calls in sequence', async () => {
    const ports = new Set<number>();
    const onConnection = (socket: { remotePort?: number }) => ports.add(socket.remotePort ?? 0);
    up.server.on('connection', onConnection);
    try {
      for (let i = 0; i < 5; i++) await (await nodeFetch(`${up.origin}/json`, post('{}'))).text();
    } finally {
      up.server.off('connection', onConnection);
    }
    expect(ports.size).toBeLessThanOrEqual(1);
  });

  it('decodes a gzip-encoded body and drops the encoding headers', async () => {
    const res = await nodeFetch(`${up.origin}/gzip`, post('{}'));
    expect(await res.text()).toBe('decoded text');
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('refuses to follow a redirect with redirect: "error", as fetch does (a TypeError)', async () => {
    const error = await nodeFetch(`${up.origin}/redirect`, post('{}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as TypeError).cause)).toMatch(/redirect/);
  });

  it('answers a 204 with a null body', async () => {
    const res = await nodeFetch(`${up.origin}/empty`, post('{}'));
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('rejects with a TypeError when the upstream cannot be reached', async () => {
    const error = await nodeFetch('http://127.0.0.1:1/x', post('{}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError & { cause: { code?: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('errors the body when the upstream cuts the connection mid-body', async () => {
    const res = await nodeFetch(`${up.origin}/cut`, post('{}'));
    await expect(res.text()).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects with the signal’s reason when aborted before the answer, and the upstream sees the close', async () => {
    const controller = new AbortController();
    const pending = nodeFetch(`${up.origin}/slow-head`, post('{}', { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client went away')), 30);
    await expect(pending).rejects.toThrow('client went away');
    const already = new AbortController();
    already.abort(new Error('too late'));
    await expect(nodeFetch(`${up.origin}/json`, post('{}', { signal: already.signal }))).rejects.toThrow('too late');
  });

  it('reads the body only as fast as it is consumed, and cancelling closes the upstream connection', async () => {
    up.pulledChunks = 0;
    const res = await nodeFetch(`${up.origin}/endless`, post('{}'));
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 200));
    const afterWait = up.pulledChunks;
    await new Promise((r) => setTimeout(r, 200));
    // Socket buffers fill up, then the upstream is held back: no unbounded buffering.
    expect(up.pulledChunks).toBe(afterWait);
    expect(afterWait * 16 * 1024).toBeLessThan(16 * 1024 * 1024);
    await reader.cancel();
    await Promise.race([up.bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('aborting mid-body errors the body with the reason and closes the upstream connection', async () => {
    const controller = new AbortController();
    const res = await nodeFetch(`${up.origin}/endless`, post('{}', { signal: controller.signal }));
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('stop now'));
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow('stop now');
    await Promise.race([up.bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('takes a Request of the global fetch, and a streamed body', async () => {
    const res = await nodeFetch(new Request(`${up.origin}/json`, { method: 'POST', body: '{"r":1}', headers: { 'x-from': 'request' } }));
    expect(await res.json()).toEqual({ echo: '{"r":1}' });
    expect(up.seen[up.seen.length - 1]!.headers['x-from']).toBe('request');
    const streamed = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"s":'));
        c.enqueue(new TextEncoder().encode('2}'));
        c.close();
      },
    });
    const res2 = await nodeFetch(`${up.origin}/json`, { method: 'POST', body: streamed, duplex: 'half' } as RequestInit);
    expect(await res2.json()).toEqual({ echo: '{"s":2}' });
  });
});

// The whole adapter suite (real SDKs, translation, mid-stream disconnect cancelling the
// upstream, body caps) with upstream calls through this fetch.
const asFetch = createNodeFetch();
describeAdapter('node:http with createNodeFetch upstream', (gateway) => listen(createServer(toNodeListener(gateway))), { fetch: asFetch });
afterAll(() => asFetch.close());
