import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request the server saw, with its body text, in order. */
  requests: Array<{ method: string; path: string; headers: Record<string, string>; body: string }>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server around a Fetch-style handler, for tests: mock upstreams that replay
 * recorded wire traffic, or a gateway for real SDK clients to talk to.
 */
export async function startServer(handler: FetchHandler): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    void serve(req, res);
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers, body: body.toString('utf8') });
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
      signal: controller.signal,
    });
    try {
      const response = await handler(request);
      res.statusCode = response.status;
      response.headers.forEach((value, key) => res.setHeader(key, value));
      if (response.body === null) {
        res.end();
        return;
      }
      // pipeline destroys the source when the client goes away, so the body stream is cancelled.
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res).catch(() => res.destroy());
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A response whose body is the given text split into chunks, sent with small pauses. */
export function chunkedResponse(chunks: string[], init: ResponseInit = {}, delayMs = 0): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i >= chunks.length) {
        controller.close();
        return;
      }
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      controller.enqueue(encoder.encode(chunks[i++]));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' }, ...init });
}
