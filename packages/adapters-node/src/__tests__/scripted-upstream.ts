/**
 * A scripted upstream for the transport tests (createNodeFetch, createNodeUpstream): JSON
 * echo, repeated set-cookie, gzip (whole, endless, corrupt), a redirect, 204, a body cut
 * short, an endless event stream that reports when its connection closes, and a head that
 * comes late. It records every request it was sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Served } from './adapter-suite.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface ScriptedUpstream {
  server: Server;
  origin: string;
  /** Every request received, in order. */
  seen: Seen[];
  /** Settles when the last `/endless` answer's connection closed. */
  bodyClosed: Promise<void>;
  /** Event-stream pieces `/endless` has handed to its socket so far (reset it before a test). */
  pulledChunks: number;
  close(): Promise<void>;
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  const up: ScriptedUpstream = {
    server,
    origin: '',
    seen: [],
    bodyClosed: Promise.resolve(),
    pulledChunks: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const route = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    up.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
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
        up.bodyClosed = new Promise<void>((r) => (resolve = r));
        const piece = 'data: ' + 'x'.repeat(16 * 1024) + '\n\n';
        let timer: ReturnType<typeof setInterval> | undefined;
        const pump = () => {
          while (res.write(piece)) up.pulledChunks++;
          up.pulledChunks++;
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
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  up.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return up;
}

/** A POST as the gateway sends it upstream: JSON with a bearer key, redirects refused. */
export const post = (body: string | Uint8Array, extra: RequestInit = {}): RequestInit => ({
  method: 'POST',
  headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer upstream-secret' }),
  body: body as BodyInit,
  redirect: 'error',
  ...extra,
});

/** Listens on a loopback port and serves the adapter suite from it. */
export async function listen(s: Server): Promise<Served> {
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
