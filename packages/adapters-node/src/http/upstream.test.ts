import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAdapter } from '../__tests__/adapter-suite.js';
import { listen, post, startScriptedUpstream, type ScriptedUpstream } from '../__tests__/scripted-upstream.js';
import { toNodeListener } from './listener.js';
import { isTimeoutError } from '@tollgate/codecs/base';
import { PRIVATE_CA } from '../__tests__/hostile-upstream.js';
import type { BodyQueue } from './body-queue.js';
import { createNodeUpstream, UpstreamTimeoutError } from './upstream.js';

const KEY = readFileSync(new URL('../__tests__/tls/key.pem', import.meta.url), 'utf8');

let up: ScriptedUpstream;
beforeAll(async () => {
  up = await startScriptedUpstream();
});
afterAll(() => up.close());

describe('createNodeUpstream: the same transport, answering with the Node stream as the body', () => {
  const upstream = createNodeUpstream();
  afterAll(() => upstream.close());
  const call = (path: string, extra: RequestInit = {}) => upstream(`${up.origin}${path}`, post('{"b":2}', extra) as RequestInit & { headers: Headers });
  const drain = async (body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null) => {
    let text = '';
    for await (const chunk of body as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
    return text;
  };

  it('sends a text body as UTF-8 with its byte length (the gateway passes translated JSON as text)', async () => {
    const text = '{"say":"héllo ☃ 👋"}';
    const res = await upstream(`${up.origin}/json`, post(text) as RequestInit & { headers: Headers });
    expect(JSON.parse(await drain(res.body))).toEqual({ echo: text });
    const last = up.seen[up.seen.length - 1]!;
    expect(last.body).toBe(text);
    expect(Number(last.headers['content-length'])).toBe(Buffer.byteLength(text));
  });

  it('answers with status, headers and a body to iterate', async () => {
    const res = await call('/json');
    expect(res.status).toBe(201);
    expect(res.headers.get('x-extra')).toBe('one');
    expect(JSON.parse(await drain(res.body))).toEqual({ echo: '{"b":2}' });
  });

  it('reads the head by name in any case, and reuses one kept-alive connection for bodies read to the end', async () => {
    const ports = new Set<number>();
    const onConnection = (socket: { remotePort?: number }) => ports.add(socket.remotePort ?? 0);
    up.server.on('connection', onConnection);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await call('/json');
        expect(res.headers.get('Content-Type')).toBe('application/json');
        expect(res.headers.has('x-missing')).toBe(false);
        expect(JSON.parse(await drain(res.body))).toEqual({ echo: '{"b":2}' });
      }
    } finally {
      up.server.off('connection', onConnection);
    }
    expect(ports.size).toBeLessThanOrEqual(1);
    const cookies = await call('/cookies');
    expect(cookies.headers.get('set-cookie')).toBe('a=1, b=2');
  });

  it('decodes gzip, answers 204 without a body, refuses redirects', async () => {
    const gzip = await call('/gzip');
    expect(gzip.headers.get('content-encoding')).toBeNull();
    expect(gzip.headers.get('content-length')).toBeNull();
    expect(await drain(gzip.body)).toBe('decoded text');
    expect(await drain((await call('/gzip')).body)).toBe('decoded text');
    expect((await call('/empty')).body).toBeNull();
    await expect(call('/redirect')).rejects.toBeInstanceOf(TypeError);
  });

  it('giving a body up before reading any of it (a discarded failover answer) closes its connection at once', async () => {
    const res = await call('/endless');
    await (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]().return!();
    await Promise.race([up.bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('a compressed body left unread survives an abort and a corrupt stream (no crash), and fails when read', async () => {
    const controller = new AbortController();
    const res = await call('/gzip-endless', { signal: controller.signal });
    controller.abort(new Error('client gone'));
    await new Promise((r) => setTimeout(r, 50));
    await expect(drain(res.body)).rejects.toThrow();
    const corrupt = await call('/gzip-corrupt');
    await new Promise((r) => setTimeout(r, 50));
    await expect(drain(corrupt.body)).rejects.toThrow();
  });

  it('fails a call whose upstream stays silent past timeoutMs, as a connection failure (TypeError)', async () => {
    const quick = createNodeUpstream({ headersTimeoutMs: 100 });
    try {
      const error = await quick(`${up.origin}/slow-head`, post('{}') as RequestInit & { headers: Headers }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(String((error as TypeError).cause)).toMatch(/no response head within 100 ms/);
    } finally {
      await quick.close();
    }
  });

  it('stopping the iteration early closes the upstream connection', async () => {
    const res = await call('/endless');
    const iterator = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return!();
    await Promise.race([up.bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });

  it('an abort mid-body fails the iteration and closes the upstream connection', async () => {
    const controller = new AbortController();
    const res = await call('/endless', { signal: controller.signal });
    const iterator = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort(new Error('stop now'));
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done === true) return;
      })(),
    ).rejects.toThrow();
    await Promise.race([up.bodyClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('upstream connection still open')), 2000))]);
  });
});

const asUpstream = createNodeUpstream();
describeAdapter('node:http with createNodeUpstream upstream', (gateway) => listen(createServer(toNodeListener(gateway))), { fetch: asUpstream });
afterAll(() => asUpstream.close());

describe('createNodeUpstream: bounds, proxies, HTTP/2', () => {
  const call = (upstream: ReturnType<typeof createNodeUpstream>, url: string, extra: RequestInit = {}) =>
    upstream(url, post('{"b":2}', extra) as RequestInit & { headers: Headers });
  const text = async (body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null) => {
    let out = '';
    for await (const chunk of body as AsyncIterable<Uint8Array>) out += Buffer.from(chunk).toString('utf8');
    return out;
  };

  it('(undici) holds a flood of 1-byte chunks to the chunk bound while nobody reads, and delivers it whole after', async () => {
    const count = 200_000;
    let written = 0;
    const flood = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Each write is its own HTTP chunk of one byte.
      const pump = () => {
        while (written < count) {
          written++;
          if (!res.write('x')) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => flood.listen(0, '127.0.0.1', r));
    const transport = createNodeUpstream({ proxy: 'none', client: 'undici', bodyLimits: { maxChunks: 64 } });
    try {
      const res = await call(transport, `http://127.0.0.1:${(flood.address() as AddressInfo).port}/`);
      await new Promise((r) => setTimeout(r, 300));
      // Unread: at most 64 chunks, however small; the rest waits in the socket.
      const queued = (res.body as unknown as BodyQueue).buffered;
      expect(queued.chunks).toBeLessThanOrEqual(64);
      expect(queued.bytes).toBeLessThanOrEqual(64);
      expect((await text(res.body)).length).toBe(count);
    } finally {
      await transport.close();
      flood.closeAllConnections();
      await new Promise<void>((r) => flood.close(() => r()));
    }
  });

  it('bounds opening a connection: a TLS handshake that never completes fails as a connect timeout', async () => {
    // Takes the connection and reads (so it sees the client go), never answers the TLS handshake.
    const mute = createNetServer((socket) => socket.on('error', () => {}).resume());
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const transport = createNodeUpstream({ proxy: 'none', connectTimeoutMs: 200 });
    try {
      const started = performance.now();
      const error = await call(transport, `https://127.0.0.1:${(mute.address() as AddressInfo).port}/`).catch((e: unknown) => e);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(error).toBeInstanceOf(TypeError);
      expect(isTimeoutError(error)).toBe(true);
    } finally {
      await transport.close();
      await new Promise<void>((r) => mute.close(() => r()));
    }
  });

  it('bounds a whole call: a body that trickles forever fails at the attempt deadline, idle bound or not', async () => {
    const trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: .\n\n'), 30);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    const transport = createNodeUpstream({ proxy: 'none', bodyIdleTimeoutMs: 400, attemptTimeoutMs: 600 });
    try {
      const started = performance.now();
      const res = await call(transport, `http://127.0.0.1:${(trickle.address() as AddressInfo).port}/`);
      const error = await text(res.body).catch((e: unknown) => e);
      expect(performance.now() - started).toBeGreaterThanOrEqual(550);
      expect(performance.now() - started).toBeLessThan(2500);
      expect(error).toBeInstanceOf(UpstreamTimeoutError);
      expect((error as UpstreamTimeoutError).bound).toBe('attempt');
    } finally {
      await transport.close();
      trickle.closeAllConnections();
      await new Promise<void>((r) => trickle.close(() => r()));
    }
  });

  it('does not count time the reader takes against the body-idle bound', async () => {
    const transport = createNodeUpstream({ proxy: 'none', bodyIdleTimeoutMs: 150 });
    try {
      const res = await call(transport, `${up.origin}/endless`);
      const iterator = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      await iterator.next();
      await new Promise((r) => setTimeout(r, 500));
      expect((await iterator.next()).done).toBe(false);
      await iterator.return!();
    } finally {
      await transport.close();
    }
  });

  it('goes through an HTTPS_PROXY tunnel, and around it for NO_PROXY hosts', async () => {
    const tunnels: string[] = [];
    const proxy = createNetServer((client) => {
      client.on('error', () => {});
      client.once('data', (data) => {
        const target = /^CONNECT (\S+) HTTP/.exec(data.toString('latin1'))?.[1];
        if (target === undefined) return void client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        tunnels.push(target);
        const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
        const out = netConnect(port, host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          out.pipe(client);
          client.pipe(out);
        });
        out.on('error', () => client.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const tls = createHttpsServer({ key: KEY, cert: PRIVATE_CA }, (_req, res) => res.end('over tls'));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const tlsOrigin = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const saved = { https: process.env.HTTPS_PROXY, no: process.env.NO_PROXY };
    process.env.HTTPS_PROXY = proxyUrl;
    delete process.env.NO_PROXY;
    const viaEnv = createNodeUpstream({ ca: PRIVATE_CA });
    if (saved.https === undefined) delete process.env.HTTPS_PROXY;
    else process.env.HTTPS_PROXY = saved.https;
    if (saved.no !== undefined) process.env.NO_PROXY = saved.no;
    const bypass = createNodeUpstream({ ca: PRIVATE_CA, proxy: { https: proxyUrl, noProxy: 'localhost,127.0.0.1' } });
    try {
      expect(await text((await call(viaEnv, `${tlsOrigin}/x`)).body)).toBe('over tls');
      expect(tunnels).toEqual([tlsOrigin.slice('https://'.length)]);
      expect(await text((await call(bypass, `${tlsOrigin}/y`)).body)).toBe('over tls');
      expect(tunnels).toHaveLength(1);
    } finally {
      await viaEnv.close();
      await bypass.close();
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('speaks HTTP/2 to an upstream that offers it when asked to, HTTP/1.1 otherwise', async () => {
    const versions: string[] = [];
    const h2 = createSecureServer({ key: KEY, cert: PRIVATE_CA, allowHTTP1: true }, (req, res) => {
      versions.push(req.httpVersion);
      res.setHeader('content-type', 'text/event-stream');
      res.write('data: one\n\n');
      res.end('data: two\n\n');
    });
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
    const h2Origin = `https://127.0.0.1:${(h2.address() as AddressInfo).port}`;
    const withH2 = createNodeUpstream({ ca: PRIVATE_CA, http2: true, proxy: 'none' });
    const without = createNodeUpstream({ ca: PRIVATE_CA, proxy: 'none' });
    try {
      const res = await call(withH2, `${h2Origin}/v1/messages`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(await text(res.body)).toBe('data: one\n\ndata: two\n\n');
      expect(await text((await call(without, `${h2Origin}/v1/messages`)).body)).toBe('data: one\n\ndata: two\n\n');
      expect(versions).toEqual(['2.0', '1.1']);
    } finally {
      await withH2.close();
      await without.close();
      await new Promise<void>((r) => h2.close(() => r()));
    }
  });
});
