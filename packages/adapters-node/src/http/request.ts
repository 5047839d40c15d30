import type { IncomingMessage } from 'node:http';
import { GatewayError, type GatewayRequest, type HeaderReader } from '@tollgate/core';
import { chunkReader } from './chunks.js';

/** Hop-by-hop headers describe one connection, not the request: they never reach the gateway. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

export interface ToRequestOptions {
  /** The body cap in bytes: the stream errors with a 413-coded `GatewayError` past it. */
  maxRequestBytes: number;
  /** Aborted when the client goes away; becomes the Request's `signal`. */
  signal: AbortSignal;
  /** The path and query to present to the gateway (default `req.url`), e.g. with a mount prefix removed. */
  url?: string;
  /** A body some earlier middleware already read (Express `req.body` after a body parser). */
  body?: Uint8Array;
  /** Called when the body is refused for its size (the connection should not be reused). */
  onTooLarge?: () => void;
}

export function tooLarge(max: number): GatewayError {
  return new GatewayError('request_too_large', `The request body is larger than the ${max}-byte limit.`);
}

/** The headers a gateway should see: everything but pseudo and hop-by-hop headers. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/**
 * The request's headers as the gateway reads them, straight from Node's parsed headers (no
 * copy): pseudo and hop-by-hop headers are absent, repeated ones joined as `Headers` would.
 */
class NodeHeaders implements HeaderReader {
  constructor(private readonly parsed: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (HOP_BY_HOP.has(key) || key.startsWith(':')) return null;
    const value = this.parsed[key];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** The same headers with `content-length` set (a body some middleware already read). */
function withContentLength(headers: HeaderReader, length: number): HeaderReader {
  const value = String(length);
  return {
    get: (name) => (name.toLowerCase() === 'content-length' ? value : headers.get(name)),
    has: (name) => name.toLowerCase() === 'content-length' || headers.has(name),
  };
}

/**
 * `IncomingMessage` → what the gateway reads of a request, as a plain object (no Fetch
 * `Request` is built): method, absolute URL, headers, the abort signal, and the body as a
 * pull-driven stream with the cap (or the bytes an earlier middleware already read).
 */
export function toGatewayRequest(req: IncomingMessage, options: ToRequestOptions): GatewayRequest {
  const method = req.method ?? 'GET';
  // As a Fetch Request would: these methods are not for an API (and TRACE echoes credentials).
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) throw new TypeError(`'${method}' HTTP method is unsupported.`);
  let headers: HeaderReader = new NodeHeaders(req.headers);
  let body: GatewayRequest['body'] = null;
  const max = options.maxRequestBytes;
  const onTooLarge = options.onTooLarge ?? (() => {});
  if (method !== 'GET' && method !== 'HEAD') {
    if (options.body !== undefined) {
      headers = withContentLength(headers, options.body.byteLength);
      body = options.body.byteLength > max ? refused(max, onTooLarge) : options.body;
    } else if (hasBody(req)) {
      body = Number(req.headers['content-length'] ?? Number.NaN) > max ? refused(max, onTooLarge) : bodyChunks(req, max, onTooLarge);
    }
  }
  return { method, url: originOf(req) + pathOf(options.url ?? req.url), headers, signal: options.signal, body };
}

/** `IncomingMessage` → Fetch `Request`, with a streamed, capped body and the given abort signal. */
export function toFetchRequest(req: IncomingMessage, options: ToRequestOptions): Request {
  const headers = headersOf(req);
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: options.signal };
  if (method !== 'GET' && method !== 'HEAD') {
    if (options.body !== undefined) {
      headers.set('content-length', String(options.body.byteLength));
      init.body = bytesStream(options.body, options.maxRequestBytes);
      init.duplex = 'half';
    } else if (hasBody(req)) {
      init.body = bodyStream(req, options.maxRequestBytes, options.onTooLarge ?? (() => {}));
      init.duplex = 'half';
    }
  }
  return new Request(originOf(req) + pathOf(options.url ?? req.url), init);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

function originOf(req: IncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const host = req.headers.host;
  // The Host header is caller-controlled: use it only when it is a plain host[:port].
  const safeHost = host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? host : 'localhost';
  return `${encrypted ? 'https' : 'http'}://${safeHost}`;
}

function pathOf(url: string | undefined): string {
  if (url === undefined || url === '') return '/';
  return url.startsWith('/') ? url : `/${url}`;
}

/**
 * The request body, read only when the gateway asks (see `chunkReader`), refused
 * (`request_too_large`, a 413) as soon as more than `max` bytes arrived — the adapter's cap,
 * which may be lower than the gateway's — a client gone mid-body is `cancelled`, and stopping
 * early leaves the socket alone, since the 413 still has to go out on it.
 */
function bodyChunks(req: IncomingMessage, max: number, onTooLarge: () => void): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const chunks = chunkReader(req, {
        arrived: () => req.complete,
        closedEarly: () => new Error('the client closed the connection before the body ended'),
        onReturn: () => {},
      });
      let received = 0;
      return {
        next: async () => {
          let result: IteratorResult<Buffer>;
          try {
            result = await chunks.next();
          } catch (cause) {
            throw new GatewayError('cancelled', 'The client closed the connection while sending the request.', { cause });
          }
          if (result.done !== true) {
            received += result.value.byteLength;
            if (received > max) {
              onTooLarge();
              throw tooLarge(max);
            }
          }
          return result;
        },
        return: () => chunks.return!(),
      };
    },
  };
}

/** A body refused for its size before any of it is read: the first read fails with a 413. */
function refused(max: number, onTooLarge: () => void): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        onTooLarge();
        throw tooLarge(max);
      },
    }),
  };
}

/** A body already in memory, as a stream that still honours the cap. */
function bytesStream(body: Uint8Array, max: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (body.byteLength > max) controller.error(tooLarge(max));
      else {
        if (body.byteLength > 0) controller.enqueue(body);
        controller.close();
      }
    },
  });
}

/**
 * The request body as a pull-driven `ReadableStream`: the socket is read only as fast as the
 * gateway consumes (backpressure), and the stream errors with `request_too_large` as soon as
 * more than `max` bytes arrived, so nothing is ever buffered without bound. A declared
 * `content-length` over the cap fails on the first read, before any byte is taken.
 */
function bodyStream(req: IncomingMessage, max: number, onTooLarge: () => void): ReadableStream<Uint8Array> {
  let received = 0;
  let finished = false;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (declared > max) {
          finished = true;
          onTooLarge();
          controller.error(tooLarge(max));
          return;
        }
        const detach = () => {
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onError);
          req.off('close', onClose);
        };
        const onData = (chunk: Buffer) => {
          if (finished) return;
          received += chunk.byteLength;
          if (received > max) {
            finished = true;
            onTooLarge();
            detach();
            req.pause();
            controller.error(tooLarge(max));
            return;
          }
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          if (finished) return;
          finished = true;
          detach();
          controller.close();
        };
        const onError = (error: Error) => {
          if (finished) return;
          finished = true;
          detach();
          controller.error(error);
        };
        const onClose = () => {
          // The socket went away before the body ended.
          if (!finished) onError(new GatewayError('cancelled', 'The client closed the connection while sending the request.'));
        };
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.on('close', onClose);
        req.pause();
      },
      pull() {
        if (!finished) req.resume();
      },
      cancel() {
        finished = true;
        req.pause();
      },
    },
    // At most 64 KiB wait for the gateway before the socket is paused (the cap still applies).
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}
