import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { BodyQueue } from './body-queue.js';
import { Client, UpstreamProtocolError, type ClientAnswer, type ClientRequest } from './client.js';
import { UpstreamTimeoutError } from './deadlines.js';
import { createNodeFetch, createNodeUpstream } from './upstream.js';

const TLS_DIR = new URL('../__tests__/tls/', import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => 'TIMED OUT' as const)]);

/** What the raw server saw of one request. */
interface Seen {
  head: string;
  body: string;
  connection: number;
}

/**
 * A loopback server that speaks bytes: it reads requests (head + content-length body, several
 * per connection) and lets each test answer with whatever bytes it likes.
 */
async function rawServer(answer: (socket: Socket, seen: Seen, index: number) => void | Promise<void>) {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let closed = 0;
  const server: Server = createNetServer((socket) => {
    const connection = ++connections;
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => {
      closed++;
      sockets.delete(socket);
    });
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const one = { head, body: buffer.toString('utf8', end + 4, end + 4 + length), connection };
        buffer = buffer.subarray(end + 4 + length);
        seen.push(one);
        void answer(socket, one, seen.length - 1);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  servers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return {
    port,
    seen,
    connections: () => connections,
    closed: () => closed,
  };
}

const servers: Array<() => Promise<void>> = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const stop of servers.splice(0)) await stop();
});

function client(options: Partial<ConstructorParameters<typeof Client>[0]> = {}): Client {
  const c = new Client({ idleTimeoutMs: 4000, timeoutMs: 10_000, maxSocketsPerOrigin: Number.POSITIVE_INFINITY, ...options });
  clients.push(c);
  return c;
}

const call = (port: number, extra: Partial<ClientRequest> = {}): ClientRequest => ({
  secure: false,
  hostname: '127.0.0.1',
  port,
  method: 'POST',
  path: '/v1/messages?beta=true',
  headers: ['content-type', 'application/json', 'x-api-key', 'secret'],
  body: '{"model":"m"}',
  signal: undefined,
  ...extra,
});

async function text(answer: ClientAnswer): Promise<string> {
  const parts: Buffer[] = [];
  if (answer.body !== null) for await (const chunk of answer.body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** Write `bytes` in pieces cut at `cuts`, each piece as its own read for the client. */
async function writeCut(socket: Socket, bytes: Buffer, cuts: number[]): Promise<void> {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    socket.write(bytes.subarray(from, cut));
    from = cut;
    await sleep(2);
  }
}

const LENGTH_ANSWER = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Request-Id: r1\r\n\r\n{"ok":true}', 'latin1');
const CHUNKED_ANSWER = Buffer.from(
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n' +
    '7\r\ndata: a\r\n' +
    '1;ext=1\r\n\n\r\n' +
    'a\r\ndata: bcde\r\n' +
    '0\r\nx-trailer: t\r\n\r\n',
  'latin1',
);

describe('Client: reading answers as RFC 9112 frames them', () => {
  it('sends one request head with host and content-length, and reads a content-length body cut at every byte', async () => {
    const server = await rawServer(async (socket, _seen, i) => {
      await writeCut(socket, LENGTH_ANSWER, i === 0 ? [] : [i]);
    });
    const c = client();
    for (let i = 0; i < LENGTH_ANSWER.length; i++) {
      const answer = await c.request(call(server.port));
      expect(answer.status).toBe(200);
      expect(answer.statusText).toBe('OK');
      expect(answer.rawHeaders).toEqual(['content-type', 'application/json', 'content-length', '11', 'x-request-id', 'r1']);
      expect(await text(answer)).toBe('{"ok":true}');
    }
    // One kept-alive connection carried every call.
    expect(server.connections()).toBe(1);
    expect(server.seen[0]!.head).toBe(
      `POST /v1/messages?beta=true HTTP/1.1\r\ncontent-type: application/json\r\nx-api-key: secret\r\nhost: 127.0.0.1:${server.port}\r\ncontent-length: 13`,
    );
    expect(server.seen[0]!.body).toBe('{"model":"m"}');
  });

  it('reads a chunked body (extensions, trailers) cut at every byte, and keeps the connection', async () => {
    const server = await rawServer(async (socket, _seen, i) => {
      await writeCut(socket, CHUNKED_ANSWER, i === 0 ? [] : [i]);
    });
    const c = client();
    for (let i = 0; i < CHUNKED_ANSWER.length; i++) {
      const answer = await c.request(call(server.port));
      expect(await text(answer)).toBe('data: a\ndata: bcde');
    }
    expect(server.connections()).toBe(1);
  });

  it('reads a body without length to the end of the connection, and does not reuse it', async () => {
    const server = await rawServer(async (socket) => {
      await writeCut(socket, Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end'), [40]);
      socket.end();
    });
    const c = client();
    expect(await text(await c.request(call(server.port)))).toBe('until the end');
    expect(await text(await c.request(call(server.port)))).toBe('until the end');
    expect(server.connections()).toBe(2);
  });

  it('skips interim answers (100, 103) and reads the final one', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n');
      setTimeout(() => socket.write('HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok'), 5);
    });
    const answer = await client().request(call(server.port));
    expect(answer.status).toBe(201);
    expect(await text(answer)).toBe('ok');
  });

  it('answers 204, 304 and an empty length without a body, and reuses the connection', async () => {
    const answers = ['HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 304 Not Modified\r\netag: x\r\n\r\n', 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'];
    const server = await rawServer((socket, _seen, i) => void socket.write(answers[i]!));
    const c = client();
    for (const status of [204, 304, 200]) {
      const answer = await c.request(call(server.port));
      expect(answer.status).toBe(status);
      expect(answer.body).toBeNull();
    }
    expect(server.connections()).toBe(1);
  });

  it('joins an obsolete folded header line, and keeps repeated headers apart', async () => {
    const server = await rawServer(
      (socket) => void socket.write('HTTP/1.1 200 OK\r\nx-long: one\r\n  two\r\nset-cookie: a=1\r\nset-cookie: b=2\r\ncontent-length: 0\r\n\r\n'),
    );
    const answer = await client().request(call(server.port));
    expect(answer.rawHeaders).toEqual(['x-long', 'one two', 'set-cookie', 'a=1', 'set-cookie', 'b=2', 'content-length', '0']);
  });

  it('does not reuse a connection after connection: close, an HTTP/1.0 answer, or bytes nobody asked for', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\na',
      'HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\nb',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\ncEXTRA',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nd',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\ne',
    ];
    const server = await rawServer((socket, _seen, i) => void socket.write(answers[i]!));
    const c = client();
    const bodies: string[] = [];
    for (let i = 0; i < answers.length; i++) bodies.push(await text(await c.request(call(server.port))));
    expect(bodies).toEqual(['a', 'b', 'c', 'd', 'e']);
    // A new connection after each of the first three; the fifth call reuses the fourth's.
    expect(server.connections()).toBe(4);
    expect(server.seen.map((s) => s.connection)).toEqual([1, 2, 3, 4, 4]);
  });

  it.each([
    ['a malformed status line', 'HTTP/2 200 OK\r\n\r\n'],
    ['a header without a name', 'HTTP/1.1 200 OK\r\n: x\r\n\r\n'],
    ['a header name with a space', 'HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n'],
    ['a negative content-length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'],
    ['conflicting content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n'],
    ['a head larger than 64 KiB', `HTTP/1.1 200 OK\r\nx-big: ${'x'.repeat(70 * 1024)}\r\n\r\n`],
  ])('fails the call on %s and closes the connection', async (_name, bytes) => {
    const server = await rawServer((socket) => void socket.write(bytes));
    const c = client();
    const failure = await c.request(call(server.port)).catch((e: unknown) => e);
    if (bytes.includes('transfer-encoding: chunked')) {
      // The head was fine: the call answered, and the body fails.
      const answer = failure as ClientAnswer;
      await expect(text(answer)).rejects.toBeInstanceOf(UpstreamProtocolError);
    } else expect(failure).toBeInstanceOf(UpstreamProtocolError);
    await expect.poll(() => server.closed()).toBe(1);
  });

  it('fails a body the upstream cuts short, and a call it closes without answering', async () => {
    const server = await rawServer((socket, _seen, i) => {
      if (i === 0) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort');
      else socket.end();
    });
    const c = client();
    const answer = await c.request(call(server.port));
    await expect(text(answer)).rejects.toThrow('the upstream closed the connection before the body ended');
    await expect(c.request(call(server.port))).rejects.toThrow('the upstream closed the connection without answering');
  });

  it('decodes gzip and brotli bodies and says so', async () => {
    const gz = gzipSync('zipped text');
    const br = brotliCompressSync('brotli text');
    const server = await rawServer((socket, _seen, i) => {
      const body = i === 0 ? gz : br;
      socket.write(
        Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-encoding: ${i === 0 ? 'gzip' : 'br'}\r\ncontent-length: ${body.length}\r\n\r\n`), body]),
      );
    });
    const c = client();
    const zipped = await c.request(call(server.port));
    expect(zipped.decoded).toBe(true);
    expect(await text(zipped)).toBe('zipped text');
    expect(await text(await c.request(call(server.port)))).toBe('brotli text');
    expect(server.connections()).toBe(1);
  });
});

describe('Client: connections', () => {
  it('opens at most maxSocketsPerOrigin connections; calls beyond wait for one and all complete', async () => {
    let open = 0;
    let most = 0;
    const server = await rawServer(async (socket) => {
      open++;
      most = Math.max(most, open);
      await sleep(20);
      open--;
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const c = client({ maxSocketsPerOrigin: 2 });
    const bodies = await Promise.all(Array.from({ length: 6 }, async () => text(await c.request(call(server.port)))));
    expect(bodies).toEqual(Array(6).fill('ok'));
    expect(server.connections()).toBe(2);
    expect(most).toBe(2);
  });

  it('an abort while waiting for a connection rejects with the reason and takes no slot', async () => {
    const server = await rawServer(async (socket) => {
      await sleep(30);
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const c = client({ maxSocketsPerOrigin: 1 });
    const first = c.request(call(server.port));
    const controller = new AbortController();
    const waiting = c.request(call(server.port, { signal: controller.signal }));
    const third = c.request(call(server.port));
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(await text(await first)).toBe('ok');
    expect(await text(await third)).toBe('ok');
    expect(server.seen).toHaveLength(2);
    expect(server.connections()).toBe(1);
  });

  it("a failure callback that throws still ends the call with what it threw, and frees the connection's slot", async () => {
    const server = await rawServer((socket, _seen, i) => {
      if (i === 0) socket.destroy();
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const c = client({ maxSocketsPerOrigin: 1 });
    const failed = c.request(
      call(server.port),
      (answer) => answer.status,
      () => {
        throw new Error('the caller could not shape it');
      },
    );
    await expect(within(failed, 2000)).rejects.toThrow('the caller could not shape it');
    // The only slot came back: the next call gets a connection and its answer.
    expect(
      await within(
        c.request(
          call(server.port),
          (answer) => answer.status,
          (error) => error,
        ),
        2000,
      ),
    ).toBe(200);
  });

  it('closes an idle connection after idleTimeoutMs, and opens a new one for the next call', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    const c = client({ idleTimeoutMs: 40 });
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    await expect.poll(() => server.closed()).toBe(1);
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    expect(server.connections()).toBe(2);
  });

  it('keeps an idle connection as long as the upstream says (keep-alive: timeout=N), a second less', async () => {
    const answer = (timeout: string) => `HTTP/1.1 200 OK\r\nkeep-alive: ${timeout}\r\ncontent-length: 2\r\n\r\nok`;
    // Two seconds: reused at once, not after the one second it is trusted for.
    const short = await rawServer((socket) => void socket.write(answer('timeout=2, max=100')));
    const c = client({ idleTimeoutMs: 60_000 });
    expect(await text(await c.request(call(short.port)))).toBe('ok');
    expect(await text(await c.request(call(short.port)))).toBe('ok');
    expect(short.connections()).toBe(1);
    await sleep(1100);
    expect(await text(await c.request(call(short.port)))).toBe('ok');
    expect(short.connections()).toBe(2);
    // One second or less: never reused.
    const none = await rawServer((socket) => void socket.write(answer('timeout=1')));
    for (let i = 0; i < 2; i++) expect(await text(await c.request(call(none.port)))).toBe('ok');
    expect(none.connections()).toBe(2);
    // Longer than idleTimeoutMs: kept for what the upstream says.
    const long = await rawServer((socket) => void socket.write(answer('timeout=30')));
    const d = client({ idleTimeoutMs: 50 });
    expect(await text(await d.request(call(long.port)))).toBe('ok');
    await sleep(200);
    expect(await text(await d.request(call(long.port)))).toBe('ok');
    expect(long.connections()).toBe(1);
  });

  it('takes the keep-alive hint of the final answer only, and the shorter of two', async () => {
    // A hint on an interim answer says nothing of the connection after the final one.
    const interim = await rawServer(
      (socket) => void socket.write('HTTP/1.1 103 Early Hints\r\nkeep-alive: timeout=30\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'),
    );
    const c = client({ idleTimeoutMs: 50 });
    expect(await text(await c.request(call(interim.port)))).toBe('ok');
    await sleep(150);
    expect(await text(await c.request(call(interim.port)))).toBe('ok');
    expect(interim.connections()).toBe(2);
    // Two hints: the shorter (one second, so not reused at all).
    const twice = await rawServer(
      (socket) => void socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=30\r\nKeep-Alive: max=9, timeout=1\r\ncontent-length: 2\r\n\r\nok'),
    );
    for (let i = 0; i < 2; i++) expect(await text(await c.request(call(twice.port)))).toBe('ok');
    expect(twice.connections()).toBe(2);
  });

  it('a kept-alive connection the upstream closed while idle is not used again', async () => {
    const server = await rawServer((socket, _seen, i) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
      if (i === 0) setTimeout(() => socket.end(), 5);
    });
    const c = client();
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    await sleep(30);
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    expect(server.connections()).toBe(2);
  });

  it('fails a call whose upstream sends nothing for timeoutMs, and closes that connection', async () => {
    const server = await rawServer(() => {});
    const c = client({ timeoutMs: 60, headersTimeoutMs: 10_000 });
    await expect(c.request(call(server.port))).rejects.toThrow('the upstream sent nothing for 60 ms');
    await expect.poll(() => server.closed()).toBe(1);
  });

  it('bounds the head hard: a head sent a byte at a time, or endless interim heads, fail at headersTimeoutMs', async () => {
    const drip = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\n');
      const timer = setInterval(() => socket.writable && socket.write('x'), 10);
      socket.on('close', () => clearInterval(timer));
    });
    const interim = await rawServer((socket) => {
      const timer = setInterval(() => socket.writable && socket.write('HTTP/1.1 100 Continue\r\n\r\n'), 10);
      socket.on('close', () => clearInterval(timer));
    });
    // The silence bound alone would never fire: bytes keep coming.
    const c = client({ timeoutMs: 60, headersTimeoutMs: 150 });
    for (const server of [drip, interim]) {
      const started = performance.now();
      const error = await c.request(call(server.port)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamTimeoutError);
      expect((error as UpstreamTimeoutError).bound).toBe('headers');
      expect(performance.now() - started).toBeLessThan(1500);
      await expect.poll(() => server.closed()).toBe(1);
    }
  });

  it('bounds the whole call: a body that keeps trickling fails at attemptTimeoutMs', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      const timer = setInterval(() => socket.writable && socket.write('1\r\nx\r\n'), 10);
      socket.on('close', () => clearInterval(timer));
    });
    const c = client({ timeoutMs: 60, headersTimeoutMs: 10_000, attemptTimeoutMs: 200 });
    const started = performance.now();
    const error = await text(await c.request(call(server.port))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect((error as UpstreamTimeoutError).bound).toBe('attempt');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('counts the wait for a pooled connection against the head deadline', async () => {
    // The one connection stays busy with a body that never ends.
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      const timer = setInterval(() => socket.writable && socket.write('1\r\nx\r\n'), 10);
      socket.on('close', () => clearInterval(timer));
    });
    const c = client({ timeoutMs: 10_000, headersTimeoutMs: 150, maxSocketsPerOrigin: 1 });
    const first = await c.request(call(server.port));
    const error = await c.request(call(server.port)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect((error as UpstreamTimeoutError).bound).toBe('headers');
    expect(server.seen).toHaveLength(1);
    await first.body!.return();
  });

  it('hands a body of 1-byte chunks on as one chunk per read, and holds at most its bounds while unread', async () => {
    const pieces = 200_000;
    let sent = 0;
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      const pump = () => {
        while (sent < pieces) {
          sent++;
          if (!socket.write('1\r\nx\r\n')) return void socket.once('drain', pump);
        }
        socket.write('0\r\n\r\n');
      };
      pump();
    });
    const c = client({ bodyLimits: { maxBytes: 64 * 1024, maxChunks: 8 } });
    const answer = await c.request(call(server.port));
    await sleep(200);
    // Unread: at most 8 chunks (one per read of at most 16 KiB); the rest waits in the socket.
    const queued = (answer.body as BodyQueue).buffered;
    expect(queued.chunks).toBeLessThanOrEqual(8);
    expect(queued.bytes).toBeLessThanOrEqual(8 * 16 * 1024);
    let chunks = 0;
    let bytes = 0;
    for await (const chunk of answer.body!) {
      chunks++;
      bytes += chunk.byteLength;
    }
    expect(bytes).toBe(pieces);
    // Far fewer chunks than the upstream sent: one per read, not one per chunk of the framing.
    expect(chunks).toBeLessThan(pieces / 10);
  });

  it('bounds opening a connection: a TLS handshake that never completes fails with a connect timeout', async () => {
    const mute = createNetServer((socket) => socket.on('error', () => {}).resume());
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    servers.push(() => new Promise<void>((r) => mute.close(() => r())));
    const c = client({ connectTimeoutMs: 100 });
    const error = await c.request(call((mute.address() as AddressInfo).port, { secure: true })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect((error as UpstreamTimeoutError).bound).toBe('connect');
  });

  it('reads a body no faster than it is consumed: a stalled reader holds the upstream back, giving up closes the connection', async () => {
    let written = 0;
    let blocked!: () => void;
    const stalled = new Promise<void>((r) => (blocked = r));
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
      const pump = () => {
        while (!socket.destroyed) {
          written += 0x4000;
          if (!socket.write(piece)) return blocked();
        }
      };
      socket.on('drain', pump);
      pump();
    });
    const c = client();
    const answer = await c.request(call(server.port));
    await stalled;
    await sleep(50);
    const before = written;
    await sleep(50);
    // Nothing more was written while nobody read: the upstream is held back by TCP.
    expect(written).toBe(before);
    // The client holds at most its 64 KiB plus what the sockets buffer, not the stream.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    const first = await answer.body!.next();
    expect(first.done).toBe(false);
    await answer.body!.return();
    await expect.poll(() => server.closed()).toBe(1);
  });

  it('an abort mid-body fails the body with the reason and closes the connection', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n'));
    const controller = new AbortController();
    const answer = await client().request(call(server.port, { signal: controller.signal }));
    const first = await answer.body!.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('first');
    const pending = answer.body!.next();
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    await expect.poll(() => server.closed()).toBe(1);
  });

  it('writes a bytes body and a header value beyond ASCII as the bytes given', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    const c = client();
    await c.request(call(server.port, { headers: ['x-name', 'caf\u00e9'], body: new TextEncoder().encode('{"a":"é"}') }));
    expect(server.seen[0]!.head).toContain('x-name: caf\u00e9\r\n');
    expect(server.seen[0]!.body).toBe('{"a":"é"}');
    expect(server.seen[0]!.head).toContain('content-length: 10');
  });

  it('refuses a header that would split the head, before anything is sent', async () => {
    const server = await rawServer(() => {});
    await expect(client().request(call(server.port, { headers: ['x-evil', 'a\r\nx-injected: 1'] }))).rejects.toBeInstanceOf(TypeError);
    await expect(client().request(call(server.port, { headers: ['bad name', 'x'] }))).rejects.toBeInstanceOf(TypeError);
    await sleep(20);
    expect(server.seen).toHaveLength(0);
  });
});

describe('Client: nothing a caller or an upstream sends can confuse a connection', () => {
  it('keeps the rest of a head that follows an interim answer when the next read reuses the buffer', async () => {
    const server = await rawServer(async (socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n');
      await sleep(20);
      socket.write(`x-pad: ${'p'.repeat(80)}\r\ncontent-length: 2\r\n\r\nok`);
    });
    const answer = await client().request(call(server.port));
    expect(answer.rawHeaders.slice(0, 2)).toEqual(['content-type', 'text/plain']);
    expect(await text(answer)).toBe('ok');
  });

  it('refuses an answer framed both by transfer-encoding and content-length, and never reuses an HTTP/1.0 chunked connection', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      'HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ];
    const server = await rawServer((socket, _seen, i) => void socket.write(answers[i]!));
    const c = client();
    await expect(c.request(call(server.port))).rejects.toThrow('both transfer-encoding and content-length');
    expect(await text(await c.request(call(server.port)))).toBe('abc');
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    expect(server.connections()).toBe(3);
  });

  it.each([
    ['a reason phrase with a control character', 'HTTP/1.1 200 O\x01K\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n'],
    ['a header value with NUL', 'HTTP/1.1 200 OK\r\nx-bad: a\0b\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n'],
    ['a header value with a bare CR', 'HTTP/1.1 200 OK\r\nx-bad: a\rb\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n'],
  ])('fails a call answered with %s, and holds no connection for it', async (_name, bytes) => {
    const server = await rawServer((socket, _seen, i) => void socket.write(i === 0 ? bytes : 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    const nodeFetch = createNodeFetch({ maxSocketsPerOrigin: 1 });
    const url = `http://127.0.0.1:${server.port}/`;
    const failure = await nodeFetch(url, { method: 'POST', body: '{}', redirect: 'error' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).cause).toBeInstanceOf(UpstreamProtocolError);
    // The one slot is free again: the next call is answered at once.
    expect(
      await within(
        nodeFetch(url, { method: 'POST', body: '{}', redirect: 'error' }).then((r) => r.text()),
        1000,
      ),
    ).toBe('ok');
    nodeFetch.close();
  });

  it('a drop-in fetch refuses a method or target that would split the request, and credentials in the URL, as fetch does', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    const nodeFetch = createNodeFetch();
    const url = `http://127.0.0.1:${server.port}/`;
    await expect(nodeFetch(url, { method: 'GET /admin HTTP/1.1\r\nhost: x\r\n\r\nPOST', body: '{}', redirect: 'error' })).rejects.toBeInstanceOf(TypeError);
    await expect(client().request(call(server.port, { path: '/a b' }))).rejects.toBeInstanceOf(TypeError);
    await expect(nodeFetch(`http://user:pw@127.0.0.1:${server.port}/`, { method: 'POST', body: '{}', redirect: 'error' })).rejects.toBeInstanceOf(TypeError);
    await expect(nodeFetch(url, { method: 'GET', body: '{}', redirect: 'error' })).rejects.toThrow('GET/HEAD');
    await sleep(20);
    expect(server.seen).toHaveLength(0);
    nodeFetch.close();
  });

  it('writes the well-known methods in upper case, as fetch does, and reads a HEAD answer without a body', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n'));
    const nodeFetch = createNodeFetch();
    const res = await nodeFetch(`http://127.0.0.1:${server.port}/`, { method: 'head', redirect: 'error' });
    expect(await within(res.text(), 1000)).toBe('');
    expect(server.seen[0]!.head.split(' ')[0]).toBe('HEAD');
    nodeFetch.close();
  });

  it('writes the length of the body it sends, whatever framing headers the caller gave', async () => {
    const server = await rawServer((socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    const nodeFetch = createNodeFetch();
    const body = '{}GET /smuggled HTTP/1.1\r\nhost: x\r\n\r\n';
    await nodeFetch(`http://127.0.0.1:${server.port}/`, {
      method: 'POST',
      headers: { 'content-length': '2', 'transfer-encoding': 'chunked', connection: 'upgrade' },
      body,
      redirect: 'error',
    }).then((r) => r.text());
    await sleep(20);
    expect(server.seen.map((s) => s.head.split('\r\n')[0])).toEqual(['POST / HTTP/1.1']);
    expect(server.seen[0]!.body).toBe(body);
    expect(server.seen[0]!.head).not.toMatch(/transfer-encoding|connection/);
    nodeFetch.close();
  });

  it('a reader slower than timeoutMs is not taken for a silent upstream', async () => {
    const big = 'x'.repeat(300 * 1024);
    const server = await rawServer((socket) => void socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n${big}`));
    const answer = await client({ timeoutMs: 100 }).request(call(server.port));
    await sleep(300);
    expect((await text(answer)).length).toBe(big.length);
  });

  it('answers every pending next() of a body in order', async () => {
    const server = await rawServer(async (socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      await sleep(20);
      socket.write('1\r\na\r\n');
      await sleep(20);
      socket.write('1\r\nb\r\n0\r\n\r\n');
    });
    const answer = await client().request(call(server.port));
    const pending = [answer.body!.next(), answer.body!.next(), answer.body!.next()];
    const results = await within(Promise.all(pending), 1000);
    expect(results).not.toBe('TIMED OUT');
    expect((results as Array<IteratorResult<Uint8Array>>).map((r) => (r.done === true ? 'end' : Buffer.from(r.value).toString()))).toEqual(['a', 'b', 'end']);
  });

  it('close() closes the connections in use once their answer is read; later calls open new ones', async () => {
    const server = await rawServer(async (socket) => {
      await sleep(30);
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const c = client();
    const pending = c.request(call(server.port));
    await sleep(5);
    c.close();
    expect(await text(await pending)).toBe('ok');
    await expect.poll(() => server.closed()).toBe(1);
    expect(await text(await c.request(call(server.port)))).toBe('ok');
    expect(server.connections()).toBe(2);
  });
});

describe('Client over TLS', () => {
  it('calls an https upstream (a private CA), reusing one TLS connection', async () => {
    let connections = 0;
    const server = createHttpsServer({ key: readFileSync(new URL('key.pem', TLS_DIR)), cert: readFileSync(new URL('cert.pem', TLS_DIR)) }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(JSON.stringify({ host: req.headers.host, body })));
    });
    server.on('secureConnection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const port = (server.address() as AddressInfo).port;
    const upstream = createNodeUpstream({ ca: readFileSync(new URL('cert.pem', TLS_DIR)) });
    const init = { method: 'POST', headers: new Headers({ 'content-type': 'application/json' }), body: '{"q":1}', redirect: 'error' as const };
    for (const host of ['localhost', 'localhost', '127.0.0.1']) {
      const answer = await upstream(`https://${host}:${port}/v1/x`, init);
      let out = '';
      for await (const chunk of answer.body as AsyncIterable<Uint8Array>) out += Buffer.from(chunk).toString();
      expect(JSON.parse(out)).toEqual({ host: `${host}:${port}`, body: '{"q":1}' });
    }
    // One connection per origin (localhost and 127.0.0.1 are two origins).
    expect(connections).toBe(2);
    await upstream.close();
  });

  it('refuses an https upstream whose certificate is not trusted, as a network failure', async () => {
    const server = createHttpsServer({ key: readFileSync(new URL('key.pem', TLS_DIR)), cert: readFileSync(new URL('cert.pem', TLS_DIR)) }, (_req, res) =>
      res.end('never'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as AddressInfo).port;
    const nodeFetch = createNodeFetch();
    const failure = await nodeFetch(`https://127.0.0.1:${port}/`, { method: 'POST', body: '{}', redirect: 'error' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as TypeError).cause)).toMatch(/self[- ]signed/i);
    nodeFetch.close();
  });
});
