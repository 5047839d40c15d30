import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createGateway, createVirtualKey, type Gateway, type UsageRecord } from '@tollgate/core';
import { registry } from '../../../core/src/gateway/__tests__/anthropic-upstream.js';
import { handleNodeRequest, toNodeListener } from './listener.js';
import { writeReply } from './response.js';
import { describeAdapter, type Served } from '../__tests__/adapter-suite.js';
import { eventually } from '../__tests__/slow-upstream.js';

async function listen(server: Server): Promise<Served> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const harness = describeAdapter('node:http', (gateway) => listen(createServer(toNodeListener(gateway))));

describe('toNodeListener', () => {
  it('answers unknown paths with the gateway’s 404', async () => {
    const res = await fetch(`${harness.served().url}/nope`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });

  it('respects backpressure: a client that stops reading stops the body being pulled', async () => {
    let pulled = 0;
    const piece = new Uint8Array(64 * 1024).fill(97);
    const gateway: Pick<Gateway, 'handle'> = {
      handle: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += piece.byteLength;
              controller.enqueue(piece);
            },
          }),
          { headers: { 'content-type': 'application/octet-stream' } },
        ),
    };
    const served = await listen(createServer(toNodeListener(gateway)));
    try {
      const paused = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const req = httpRequest(`${served.url}/stream`, (res) => {
          res.pause();
          resolve(res);
        });
        req.on('error', reject);
        req.end();
      });
      // Let the server fill the socket buffers, then check it stopped pulling.
      await new Promise((r) => setTimeout(r, 300));
      const plateau = pulled;
      await new Promise((r) => setTimeout(r, 300));
      expect(pulled).toBe(plateau);
      expect(pulled).toBeLessThan(64 * 1024 * 1024);
      // Reading again resumes the pull.
      let read = 0;
      paused.on('data', (c: Buffer) => (read += c.byteLength));
      paused.resume();
      await eventually(() => (pulled > plateau + 1024 * 1024 ? true : undefined));
      expect(read).toBeGreaterThan(0);
      paused.destroy();
    } finally {
      await served.close();
    }
  });

  it('never crashes: a throwing gateway gives 500, a failing body cuts the connection, the server goes on', async () => {
    let mode: 'throw' | 'cut' | 'ok' = 'throw';
    const errors: unknown[] = [];
    const gateway: Pick<Gateway, 'handle'> = {
      handle: async () => {
        if (mode === 'throw') throw new Error('boom');
        if (mode === 'cut') {
          let n = 0;
          return new Response(
            new ReadableStream<Uint8Array>({
              pull(controller) {
                if (n++ === 0) controller.enqueue(new TextEncoder().encode('data: 1\n\n'));
                else controller.error(new Error('upstream vanished'));
              },
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          );
        }
        return new Response('fine', { headers: { 'x-multi': 'a', 'set-cookie': 'a=1' } });
      },
    };
    const served = await listen(createServer(toNodeListener(gateway, { onError: (e) => errors.push(e) })));
    try {
      const thrown = await fetch(`${served.url}/x`, { method: 'POST', body: '{}' });
      expect(thrown.status).toBe(500);
      expect(errors).toHaveLength(1);
      mode = 'cut';
      const cut = await new Promise<{ status: number; complete: boolean }>((resolve, reject) => {
        const req = httpRequest(`${served.url}/x`, { method: 'POST' }, (res) => {
          res.on('data', () => {});
          res.on('error', () => {});
          res.on('close', () => resolve({ status: res.statusCode ?? 0, complete: res.complete }));
        });
        req.on('error', reject);
        req.end('{}');
      });
      expect(cut).toEqual({ status: 200, complete: false });
      // A method Fetch cannot express never reaches the gateway.
      const trace = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${served.url}/x`, { method: 'TRACE' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(trace).toBe(400);
      mode = 'ok';
      const ok = await fetch(`${served.url}/x`);
      expect(await ok.text()).toBe('fine');
      expect(ok.headers.get('x-multi')).toBe('a');
      expect(ok.headers.getSetCookie()).toEqual(['a=1']);
    } finally {
      await served.close();
    }
  });

  it('streams the request body into the gateway without reading it first', async () => {
    let firstChunkSeen!: () => void;
    const seen = new Promise<void>((r) => (firstChunkSeen = r));
    const gateway: Pick<Gateway, 'handle'> = {
      handle: async (request) => {
        let total = 0;
        for await (const value of request.body as AsyncIterable<Uint8Array>) {
          if (total === 0) firstChunkSeen();
          total += value.byteLength;
        }
        return new Response(String(total));
      },
    };
    const served = await listen(createServer(toNodeListener(gateway)));
    try {
      const answer = new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${served.url}/up`, { method: 'POST' }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.write('first');
        // The gateway sees the first piece while the client is still sending.
        void seen.then(() => req.end('second'));
      });
      expect(await answer).toBe(String('firstsecond'.length));
    } finally {
      await served.close();
    }
  });
});

describe('toNodeListener: the request the gateway reads', () => {
  it('reads a body that arrived whole, late, and keeps the connection for the next request', async () => {
    // The gateway reads the body only after the whole request arrived (nothing to wait for),
    // and reads on past its end: each answer has its whole body, the connection carries both.
    const gateway: Pick<Gateway, 'handle'> = {
      handle: async (request) => {
        await new Promise((r) => setTimeout(r, 20));
        const iterator = (request.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
        let text = '';
        for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) text += Buffer.from(next.value).toString();
        expect(await iterator.next()).toEqual({ done: true, value: undefined });
        return new Response(text);
      },
    };
    const served = await listen(createServer(toNodeListener(gateway)));
    const socket = connect(Number(new URL(served.url).port), '127.0.0.1');
    try {
      let received = '';
      socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
      const post = (body: string) => `POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
      socket.write(post('{"one":1}'));
      await eventually(() => (received.includes('{"one":1}') ? true : undefined));
      socket.write(post('{"two":2}'));
      await eventually(() => (received.includes('{"two":2}') ? true : undefined));
      expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    } finally {
      socket.destroy();
      await served.close();
    }
  });

  it('shows headers as a Fetch Headers would: hop-by-hop ones absent, repeated ones joined, any case', async () => {
    let seen: Record<string, string | null> = {};
    const gateway: Pick<Gateway, 'handle'> = {
      handle: async (request) => {
        seen = {
          connection: request.headers.get('connection'),
          keepAlive: request.headers.get('keep-alive'),
          multi: request.headers.get('X-Multi'),
          auth: request.headers.get('authorization'),
          hasAuth: String(request.headers.has('Authorization')),
          missing: request.headers.get('x-missing'),
        };
        return new Response('ok');
      },
    };
    const served = await listen(createServer(toNodeListener(gateway)));
    try {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          `${served.url}/h`,
          {
            method: 'POST',
            headers: [
              'Connection',
              'keep-alive',
              'Keep-Alive',
              'timeout=5',
              'X-Multi',
              'a',
              'X-Multi',
              'b',
              'Authorization',
              'Bearer k',
              'Host',
              'localhost',
              'Content-Length',
              '2',
            ],
          },
          (res) => {
            expect(res.statusCode).toBe(200);
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      expect(seen).toEqual({ connection: null, keepAlive: null, multi: 'a, b', auth: 'Bearer k', hasAuth: 'true', missing: null });
    } finally {
      await served.close();
    }
  });
});

describe('toNodeListener: the adapter’s own body cap, and clients gone mid-body', () => {
  it('enforces its maxRequestBytes even when the gateway’s cap is larger (declared and chunked bodies)', async () => {
    const served = await listen(createServer(toNodeListener(harness.gateway(), { maxRequestBytes: 1024 })));
    try {
      const body = JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
      const headers = { authorization: `Bearer ${harness.key()}`, 'content-type': 'application/json' };
      const declared = await fetch(`${served.url}/v1/chat/completions`, { method: 'POST', headers, body });
      expect(declared.status).toBe(413);
      const chunked = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode(body));
            c.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
      // Within the cap it is served as usual.
      const small = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(small.status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('records a client that goes away mid-body as cancelled, not as an invalid request', async () => {
    const before = harness.records.length;
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${harness.served().url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${harness.key()}`, 'content-type': 'application/json', 'content-length': '5000' },
      });
      req.on('error', () => resolve());
      req.write('{"model":"gpt-mini","messages":[');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
      req.on('response', () => reject(new Error('no answer expected')));
    });
    const record = await eventually(() => harness.records.slice(before).find((r) => r.reason === 'client_cancelled'));
    expect(record).toMatchObject({ status: 'cancelled', reason: 'client_cancelled' });
  });
});

describe('writing a gateway reply', () => {
  it('sends a text body as UTF-8 with its byte length, bytes likewise, and a HEAD without the body', async () => {
    const text = '{"say":"héllo ☃ 👋"}';
    const served = await listen(
      createServer((req, res) => {
        const path = req.url ?? '/';
        const body = path === '/bytes' ? new TextEncoder().encode(text) : text;
        void writeReply({ status: 200, headers: { 'content-type': 'application/json', 'x-path': path }, body }, res, req.method);
      }),
    );
    try {
      for (const path of ['/text', '/bytes']) {
        const res = await fetch(`${served.url}${path}`);
        expect(res.headers.get('x-path')).toBe(path);
        expect(res.headers.get('transfer-encoding')).toBeNull();
        expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
        expect(await res.text()).toBe(text);
      }
      const head = await fetch(`${served.url}/text`, { method: 'HEAD' });
      expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      expect(await head.text()).toBe('');
    } finally {
      await served.close();
    }
  });
});

describe('an event stream’s head', () => {
  it('goes out before a late first event, for every stream waiting at once, and with an early one in one write', async () => {
    const served = await listen(
      createServer((req, res) => {
        const wait = Number((req.url ?? '/0').slice(1));
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, wait));
            controller.enqueue(new TextEncoder().encode(`data: ${wait}\n\n`));
            controller.close();
          },
        });
        void writeReply({ status: 200, headers: { 'content-type': 'text/event-stream' }, body }, res, req.method);
      }),
    );
    try {
      const started = Date.now();
      const timed = async (path: string, after: number) => {
        await new Promise((r) => setTimeout(r, after));
        const res = await fetch(`${served.url}${path}`);
        const headAt = Date.now() - started;
        return { headAt, text: await res.text() };
      };
      const [a, b, c] = await Promise.all([timed('/400', 0), timed('/400', 30), timed('/0', 15)]);
      // Both late streams show their head long before their event; the early one ends at once.
      expect(a.headAt).toBeLessThan(250);
      expect(b.headAt).toBeLessThan(280);
      expect([a.text, b.text, c.text]).toEqual(['data: 400\n\n', 'data: 400\n\n', 'data: 0\n\n']);
    } finally {
      await served.close();
    }
  });

  it('goes out before the connection is cut when the stream fails before its first event', async () => {
    const served = await listen(
      createServer((req, res) => {
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, Number((req.url ?? '/0').slice(1))));
            controller.error(new Error('upstream gone'));
          },
        });
        void writeReply({ status: 200, headers: { 'content-type': 'text/event-stream' }, body }, res, req.method);
      }),
    );
    try {
      for (const path of ['/0', '/100']) {
        const res = await fetch(`${served.url}${path}`);
        expect(res.status).toBe(200);
        await expect(res.text()).rejects.toThrow();
      }
    } finally {
      await served.close();
    }
  });
});

describe('a client that takes nothing of its answer', () => {
  it('is cut once nothing of a large whole body left for stallMs; one that keeps reading is not', async () => {
    const stalls: string[] = [];
    const big = 'x'.repeat(16 * 1024 * 1024);
    const served = await listen(
      createServer((req, res) => {
        void writeReply({ status: 200, headers: { 'content-type': 'text/plain' }, body: big }, res, req.method, {
          stallMs: 1500,
          onStall: () => stalls.push(req.url ?? ''),
        });
      }),
    );
    try {
      const { socket } = await new Promise<{ socket: Socket }>((resolve, reject) => {
        const s = connect(Number(new URL(served.url).port), '127.0.0.1', () => {
          s.write('GET /stalled HTTP/1.1\r\nhost: x\r\n\r\n');
          // Read the first bytes, then nothing: the server's writes back up.
          s.once('data', () => {
            s.pause();
            resolve({ socket: s });
          });
        });
        s.on('error', reject);
      });
      await eventually(() => (stalls.includes('/stalled') ? true : undefined), 5000);
      socket.destroy();
      // A slow reader that keeps taking bytes is not cut.
      const slow = await new Promise<number>((resolve, reject) => {
        let read = 0;
        const s = connect(Number(new URL(served.url).port), '127.0.0.1', () => s.write('GET /slow HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'));
        s.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Slowly, but on: what the kernel frees between two drains takes well under stallMs.
          s.pause();
          setTimeout(() => s.resume(), 10);
        });
        s.on('end', () => resolve(read));
        s.on('error', reject);
      }).catch((e: unknown) => e);
      expect(typeof slow).toBe('number');
      expect(slow as number).toBeGreaterThan(big.length);
      expect(stalls).toEqual(['/stalled']);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('toNodeListener: a wrapped gateway', () => {
  it('calls a wrapped handle (never bypassed by the gateway’s own reply), and the gateway itself through reply', async () => {
    const gateway = harness.gateway();
    let wrapped = 0;
    const logged = {
      ...gateway,
      handle: async (request: Parameters<Gateway['handle']>[0]) => {
        wrapped++;
        const response = await gateway.handle(request);
        response.headers.set('x-wrapped', 'yes');
        return response;
      },
    };
    const served = await listen(createServer(toNodeListener(logged)));
    try {
      const init = {
        method: 'POST',
        headers: { authorization: `Bearer ${harness.key()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] }),
      };
      const res = await fetch(`${served.url}/v1/chat/completions`, init);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-wrapped')).toBe('yes');
      expect(wrapped).toBe(1);
      const direct = await fetch(`${harness.served().url}/v1/chat/completions`, init);
      expect(direct.status).toBe(200);
      expect(direct.headers.get('x-wrapped')).toBeNull();
      expect(wrapped).toBe(1);
    } finally {
      await served.close();
    }
  });
});

describe('a client that goes away while the upstream stream is silent', () => {
  const START =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n';

  for (const entry of ['/v1/chat/completions', '/v1/messages']) {
    it(`${entry}: the adapter is done with the request at once, and the record says cancelled`, async () => {
      const { key, hash } = await createVirtualKey();
      const records: UsageRecord[] = [];
      // An upstream transport answering with a Node stream as its body, silent after its first events.
      const upstreamBody = new PassThrough();
      upstreamBody.write(START);
      const gateway = createGateway({
        registry: registry(),
        identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
        secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
        fetch: async () => ({ status: 200, headers: new Headers({ 'content-type': 'text/event-stream' }), body: upstreamBody }),
        usage: (r) => void records.push(r),
      });
      let finished = false;
      const server: Server = createServer((req, res) => void handleNodeRequest(gateway, req, res).then(() => (finished = true)));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      try {
        await new Promise<void>((resolve, reject) => {
          const headers = { authorization: `Bearer ${key}`, 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
          const req = httpRequest({ host: '127.0.0.1', port, path: entry, method: 'POST', headers }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', () => {});
          req.end(JSON.stringify({ model: 'claude-sonnet', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
          setTimeout(() => reject(new Error('no first chunk')), 2000);
        });
        await eventually(() => (finished ? true : undefined), 1000);
        expect(records.map((r) => r.status)).toEqual(['cancelled']);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        upstreamBody.end();
        await gateway.close({ drainMs: 100 });
      }
    });
  }
});

describe('the bookkeeping of a whole answer', () => {
  const ANSWER = JSON.stringify({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hi' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 2 },
  });

  it('runs once the answer is written, after I/O that was already waiting (a next request is read first)', async () => {
    const { key, hash } = await createVirtualKey();
    const events: string[] = [];
    // A connection standing for "the next request": bytes sent on it wait in the kernel until the loop polls.
    const waiting = createNetServer((socket) => socket.on('data', () => events.push('waiting bytes read')));
    await new Promise<void>((r) => waiting.listen(0, '127.0.0.1', r));
    const sender: Socket = connect((waiting.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((r) => sender.once('connect', () => r()));
    await new Promise((r) => setTimeout(r, 20));
    const gateway = createGateway({
      registry: registry(),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
      fetch: async () => {
        // Loopback delivers at once: these bytes are readable before the answer below is written.
        sender.write('next');
        return { status: 200, headers: new Headers({ 'content-type': 'application/json' }), body: new Response(ANSWER).body };
      },
      usage: () => void events.push('usage record'),
    });
    let written = false;
    const server: Server = createServer((req, res) => {
      res.once('finish', () => {
        written = true;
        events.push('answer written');
      });
      void handleNodeRequest(gateway, req, res);
    });
    const served = await listen(server);
    try {
      const res = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('Hi');
      await eventually(() => (events.includes('usage record') ? true : undefined), 2000);
      expect(written).toBe(true);
      expect(events.indexOf('answer written')).toBeLessThan(events.indexOf('usage record'));
      expect(events.filter((e) => e !== 'answer written')).toEqual(['waiting bytes read', 'usage record']);
    } finally {
      sender.destroy();
      await new Promise<void>((r) => waiting.close(() => r()));
      await served.close();
      await gateway.close({ drainMs: 100 });
    }
  });
  it('settles an answer before the same client’s next request is admitted: back-to-back requests under a cap are not refused', async () => {
    const { key, hash } = await createVirtualKey();
    const records: UsageRecord[] = [];
    // Each call reserves its worst case (597 µ$: every byte of its 85-byte body and 64 tokens of
    // scaffolding at $3/Mtok, 10 output tokens at $15/Mtok) and costs 45 µ$: the cap fits two calls only
    // when the first is settled (its hold gone, its cost counted) before the second is admitted.
    const gateway = createGateway({
      registry: registry(),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
      policy: {
        spend: { rules: [{ id: 'tiny', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.0007' }, actions: [{ type: 'block' }] }] }] },
      },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
      fetch: async () => ({ status: 200, headers: new Headers({ 'content-type': 'application/json' }), body: new Response(ANSWER).body }),
      usage: (r) => void records.push(r),
    });
    const served = await listen(createServer(toNodeListener(gateway)));
    try {
      // Two requests in one write on one connection: node:http reads the second as soon as the
      // first answer is finished, as a client sending its next request at once would be read.
      const body = JSON.stringify({ model: 'claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
      const one = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const socket = connect(Number(new URL(served.url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.write(one + one);
      await eventually(() => ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 2 ? true : undefined), 2000);
      socket.destroy();
      expect((received.match(/HTTP\/1\.1 (\d{3})/g) ?? []).map((line) => line.slice(9))).toEqual(['200', '200']);
      await eventually(() => (records.length === 2 ? true : undefined), 2000);
      expect(records.map((r) => [r.status, r.reserved_micros, r.cost_micros?.total])).toEqual([
        ['ok', 597, 45],
        ['ok', 597, 45],
      ]);
    } finally {
      await served.close();
      await gateway.close({ drainMs: 100 });
    }
  });
});
