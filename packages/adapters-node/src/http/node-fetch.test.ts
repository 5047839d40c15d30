import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAdapter, type Served } from '../__tests__/adapter-suite.js';
import { toNodeListener } from './listener.js';
import { createNodeFetch } from './upstream.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let origin: string;
const seen: Seen[] = [];
let bodyClosed: Promise<void> = Promise.resolve();
let pulledChunks = 0;

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
  switch (req.url) {
    case '/json':
      res.writeHead(201, { 'content-type': 'application/json', 'x-extra': 'one' });
      res.end(JSON.stringify({ echo: body }));
      return;
    case '/cookies':
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.end('ok');
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync('decoded text'));
      return;
    case '/gzip-endless': {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      const whole = gzipSync('x'.repeat(100_000));
      res.write(whole.subarray(0, 100));
      return;
    }
    case '/gzip-corrupt':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all'));
      return;
    case '/redirect':
      res.writeHead(307, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
      return;
    case '/empty':
      res.writeHead(204);
      res.end();
      return;
    case '/cut':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
      return;
    case '/endless': {
      // Writes as long as the socket takes it; reports when the connection closes.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let resolve!: () => void;
      bodyClosed = new Promise<void>((r) => (resolve = r));
      const piece = 'data: ' + 'x'.repeat(16 * 1024) + '\n\n';
      let timer: ReturnType<typeof setInterval> | undefined;
      const pump = () => {
        while (res.write(piece)) pulledChunks++;
        pulledChunks++;
      };
      res.on('drain', pump);
      res.on('close', () => {
        clearInterval(timer);
        resolve();
      });
      pump();
      timer = setInterval(() => {}, 1000);
      return;
    }
    case '/slow-head':
      setTimeout(() => {
        if (!res.destroyed) res.end('late');
      }, 2000);
      return;
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const post = (body: string | Uint8Array, extra: RequestInit = {}): RequestInit => ({
  method: 'POST',
  headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer upstream-secret' }),
  body: body as BodyInit,
  redirect: 'error',
  ...extra,
});

describe('createNodeFetch: a fetch over the transport’s undici connections', () => {
  const nodeFetch = createNodeFetch();
  afterAll(() => nodeFetch.close());

  it('sends method, headers and body, and answers with status, headers and body like fetch', async () => {
    const res = await nodeFetch(`${origin}/json`, post(new TextEncoder().encode('{"a":1}')));
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-extra')).toBe('one');
    expect(await res.json()).toEqual({ echo: '{"a":1}' });
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ method: 'POST', url: '/json', body: '{"a":1}' });
    expect(last.headers.authorization).toBe('Bearer upstream-secret');
    expect(last.headers['content-length']).toBe('7');
    expect(last.headers.host).toBe(new URL(origin).host);
  });

  it('keeps repeated set-cookie values apart', async () => {
    const res = await nodeFetch(`${origin}/cookies`, post('{}'));
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('reuses one kept-alive connection for calls in sequence', async () => {
    const ports = new Set<number>();
    const onConnection = (socket: { remotePort?: number }) => ports.add(socket.remotePort ?? 0);
    server.on('connection', onConnection);
    try {
      for (let i = 0; i < 5; i++) await (await nodeFetch(`${origin}/json`, post('{}'))).text();
    } finally {
      server.off('connection', onConnection);
    }
    expect(ports.size).toBeLessThanOrEqual(1);
  });

  it('decodes a gzip-encoded body and drops the encoding headers', async () => {
    const res = await nodeFetch(`${origin}/gzip`, post('{}'));
    expect(await res.text()).toBe('decoded text');
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('refuses to follow a redirect with redirect: "error", as fetch does (a TypeError)', async () => {
    const error = await nodeFetch(`${origin}/redirect`, post('{}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as TypeError).cause)).toMatch(/redirect/);
  });

  it('answers a 204 with a null body', async () => {
    const res = await nodeFetch(`${origin}/empty`, post('{}'));
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('rejects with a TypeError when the upstream cannot be reached', async () => {
    const error = await nodeFetch('http://127.0.0.1:1/x', post('{}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError & { cause: { code?: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('errors the body when the upstream cuts the connection mid-body', async () => {
    const res = await nodeFetch(`${origin}/cut`, post('{}'));
    await expect(res.text()).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects with the signal’s reason when aborted before the answer, and the upstream sees the close', async () => {
    const controller = new AbortController();
    const pending = nodeFetch(`${origin}/slow-head`, post('{}', { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client went away')), 30);
    await expect(pending).rejects.toThrow('client went away');
    const already = new AbortController();
    already.abort(new Error('too late'));
    await expect(nodeFetch(`${origin}/json`, post('{}', { signal: already.signal }))).rejects.toThrow('too late');
  });

  it('reads the body only as fast as it is consumed, and cancelling closes the upstream connection', async () => {
    pulledChunks = 0;
    const res = await nodeFetch(`${origin}/endless`, post('{}'));
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 200));
    const afterWait = pulledChunks;
    await new Promise((r) => setTimeout(r, 200));
    // Socket buffers fill up, then the upstream is held back: no unbounded buffering.
    expect(pulledChunks).toBe(afterWait);
    expect(afterWait * 16 * 1024).toBeLessThan(16 * 1024 * 1024);
    await reader.cancel();
    await Promise.race([bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('aborting mid-body errors the body with the reason and closes the upstream connection', async () => {
    const controller = new AbortController();
    const res = await nodeFetch(`${origin}/endless`, post('{}', { signal: controller.signal }));
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('stop now'));
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow('stop now');
    await Promise.race([bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('takes a Request of the global fetch, and a streamed body', async () => {
    const res = await nodeFetch(new Request(`${origin}/json`, { method: 'POST', body: '{"r":1}', headers: { 'x-from': 'request' } }));
    expect(await res.json()).toEqual({ echo: '{"r":1}' });
    expect(seen[seen.length - 1]!.headers['x-from']).toBe('request');
    const streamed = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"s":'));
        c.enqueue(new TextEncoder().encode('2}'));
        c.close();
      },
    });
    const res2 = await nodeFetch(`${origin}/json`, { method: 'POST', body: streamed, duplex: 'half' } as RequestInit);
    expect(await res2.json()).toEqual({ echo: '{"s":2}' });
  });
});

async function listen(s: Server): Promise<Served> {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  };
}

// The whole adapter suite (real SDKs, translation, mid-stream disconnect cancelling the
// upstream, body caps) with upstream calls through this fetch.
const asFetch = createNodeFetch();
describeAdapter('node:http with createNodeFetch upstream', (gateway) => listen(createServer(toNodeListener(gateway))), { fetch: asFetch });
afterAll(() => asFetch.close());
