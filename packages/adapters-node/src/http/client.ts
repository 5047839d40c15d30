/**
 * The HTTP/1.1 client behind the gateway's upstream calls on Node: keep-alive connections per
 * origin over `node:net`/`node:tls`, one write per request, and a response parser that hands a
 * body on as slices of the bytes read. It does what the gateway's calls need and no more — a
 * request with its body in memory, an answer whose body streams with backpressure — and so
 * spares what `http.request` builds per call around the same socket (a `ClientRequest`, an
 * `IncomingMessage` stream, agent bookkeeping on the next ticks): at one connection behind a
 * slow upstream, where every request runs on cold caches, that was a third of the gateway's own
 * time on the critical path (BENCHMARKS.md).
 *
 * Responses are read as RFC 9112 has a client read them: interim (1xx) answers are skipped, the
 * body is delimited by `transfer-encoding: chunked`, else `content-length`, else the end of the
 * connection; a head over 64 KiB, a malformed status line, header, length or chunk fails the call
 * and closes the connection. A connection is reused only after a whole answer was read from it
 * and neither side asked to close it.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';

export interface ClientOptions {
  /** Idle keep-alive connections are closed after this long (ms). */
  idleTimeoutMs: number;
  /** An upstream silent this long (no head yet, or no body bytes since the last) fails the call. */
  timeoutMs: number;
  /** At most this many connections per origin; calls beyond wait for one. */
  maxSocketsPerOrigin: number;
  /** Certificate authorities trusted for https upstreams instead of Node's defaults (as `tls.connect`'s `ca`). */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** One call: what goes on the wire. `path` includes the query; `headers` a flat name/value list. */
export interface ClientRequest {
  secure: boolean;
  /** Host name or IP (IPv6 without brackets). */
  hostname: string;
  port: number;
  method: string;
  path: string;
  /** Lowercase names and values, in order; `host` and `content-length` are added when absent. */
  headers: string[];
  body: string | Uint8Array | null;
  signal: AbortSignal | undefined;
}

/** An answer's head and body. The body is null for a status or method without one. */
export interface ClientAnswer {
  status: number;
  statusText: string;
  /** The head as a flat list: name (lowercase), value, name, value… in the order received. */
  rawHeaders: string[];
  /** Whether the body is decoded (the upstream compressed it): its encoding and length headers no longer apply. */
  decoded: boolean;
  body: BodyQueue | null;
}

/** How many body bytes may wait for the consumer before the connection stops being read. */
const BUFFERED_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
/** Each plain connection reads into a buffer of its own this large. */
const READ_BUFFER_BYTES = 16 * 1024;
const MAX_CHUNK_LINE = 4096;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;
const ASCII = /^[\x00-\x7f]*$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');

/** The error a body fails with when the connection ends before the body does. */
export function closedEarly(): Error {
  return new Error('the upstream closed the connection before the body ended');
}

/** A response the client could not read (malformed head or framing): the connection is closed. */
export class UpstreamProtocolError extends Error {
  override readonly name = 'UpstreamProtocolError';
}

/**
 * The body of one answer, as the gateway reads it: an async iterator of chunks (slices of what
 * was read, not copies). When more than 64 KiB wait unread the connection is paused, and read
 * again once the consumer catches up. `return()` gives the body up: a connection whose answer
 * was not read to its end is closed, never reused.
 */
export class BodyQueue implements AsyncIterableIterator<Uint8Array> {
  private chunks: Uint8Array[] = [];
  private first = 0;
  private bytes = 0;
  private ended = false;
  private failure: unknown = null;
  private given = false;
  private wake: (() => void) | null = null;
  /** Set by the producer: called when the consumer has made room again after `push` said stop. */
  onRoom: (() => void) | null = null;
  /** Set by the producer: called once when the consumer gives the body up before its end. */
  onGiveUp: (() => void) | null = null;

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Whether every chunk has arrived (the end or a failure is known). */
  get settled(): boolean {
    return this.ended || this.failure !== null || this.given;
  }

  /** Add a chunk; false when the consumer is behind (the producer should pause). */
  push(chunk: Uint8Array): boolean {
    if (this.settled) return true;
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
    this.rouse();
    return this.bytes < BUFFERED_BYTES;
  }

  end(): void {
    if (this.settled) return;
    this.ended = true;
    this.rouse();
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.failure = error;
    this.rouse();
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.first < this.chunks.length) return Promise.resolve({ done: false, value: this.take() });
    if (this.given || (this.ended && this.failure === null)) return Promise.resolve({ done: true, value: undefined });
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => this.next());
  }

  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.given) {
      const early = !this.ended && this.failure === null;
      this.given = true;
      this.chunks = [];
      this.first = 0;
      this.bytes = 0;
      if (early) this.onGiveUp?.();
      this.rouse();
    }
    return Promise.resolve({ done: true, value: undefined });
  }

  private take(): Uint8Array {
    const chunk = this.chunks[this.first]!;
    this.chunks[this.first++] = undefined!;
    if (this.first === this.chunks.length) {
      this.chunks = [];
      this.first = 0;
    }
    const wasFull = this.bytes >= BUFFERED_BYTES;
    this.bytes -= chunk.byteLength;
    if (wasFull && this.bytes < BUFFERED_BYTES) this.onRoom?.();
    return chunk;
  }

  private rouse(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };
type ChunkState = 'size' | 'data' | 'data-end' | 'trailer';

function decoderFor(encoding: string | null): Gunzip | Inflate | BrotliDecompress | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/** One header value from a flat list of lowercase names (`name` lowercase too; repeated ones joined with `, `). */
export function rawHeader(raw: readonly string[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i] !== name) continue;
    found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]!}`;
  }
  return found;
}

/**
 * One request on one connection, and the parse of its answer. The bytes of the answer arrive
 * through `read`; the head resolves the call, the rest goes to the body.
 */
class Exchange {
  /** Undecoded body bytes, in order, or null before the head. */
  private framing: Framing | null = null;
  private pending: Buffer | null = null;
  private chunkState: ChunkState = 'size';
  private chunkLeft = 0;
  private body: BodyQueue | null = null;
  private decoder: Gunzip | Inflate | BrotliDecompress | null = null;
  private answered = false;
  private finished = false;
  private keepAlive = true;
  private detachSignal: (() => void) | null = null;

  constructor(
    readonly request: ClientRequest,
    private readonly resolve: (answer: ClientAnswer) => void,
    private readonly reject: (error: unknown) => void,
    /** Called once the exchange is over: whether the connection may carry another. */
    private readonly done: (reusable: boolean) => void,
    /** Pause or resume reading the connection. */
    private readonly flow: (on: boolean) => void,
  ) {
    const signal = request.signal;
    if (signal !== undefined) {
      const onAbort = () => this.fail(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      this.detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** Whether the bytes `read` gets live in a buffer the next read overwrites (then what is kept is copied). */
  private shared = false;

  /** Bytes from the connection, in order; `shared` when they are only lent until the next read. */
  read(data: Buffer, shared: boolean): void {
    if (this.finished) return;
    this.shared = shared;
    try {
      let rest: Buffer | null = data;
      if (this.framing === null) {
        rest = this.readHead(data);
        if (rest === null || this.finished) return;
      }
      this.readBody(rest);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The connection ended (the peer's FIN or a close): the end of a close-delimited body, else a failure. */
  end(error?: unknown): void {
    if (this.finished) return;
    if (error === undefined && this.framing?.kind === 'close') {
      this.keepAlive = false;
      this.complete();
      return;
    }
    const signal = this.request.signal;
    this.fail(signal?.aborted === true ? abortReason(signal) : this.answered ? closedEarly() : (error ?? new Error('the upstream closed the connection without answering')));
  }

  /** Fail whatever is not over yet: the call before the head, the body after it. The connection is not reused. */
  fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.keepAlive = false;
    this.detachSignal?.();
    if (!this.answered) {
      this.answered = true;
      this.reject(error);
    } else if (this.decoder !== null) this.decoder.destroy(error instanceof Error ? error : new Error(String(error)));
    else this.body?.fail(error);
    this.done(false);
  }

  /** The head, once whole; returns the bytes after it, or null while it is incomplete. */
  private readHead(data: Buffer): Buffer | null {
    let buffer = this.pending === null ? data : Buffer.concat([this.pending, data]);
    for (;;) {
      // Search only where the end could be: a previous miss can overlap the new bytes by 3.
      const from = this.pending === null ? 0 : Math.max(0, this.pending.length - 3);
      const end = buffer.indexOf(CRLF2, from);
      if (end === -1 ? buffer.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES) throw new UpstreamProtocolError('the upstream response head is larger than 64 KiB');
      if (end === -1) {
        this.pending = buffer === data && this.shared ? Buffer.from(buffer) : buffer;
        return null;
      }
      this.pending = null;
      const status = this.parseHead(buffer.toString('latin1', 0, end));
      buffer = buffer.subarray(end + 4);
      if (status !== null) return buffer;
      // An interim answer (100 Continue, 103 Early Hints): the real one follows.
      if (buffer.length === 0) return null;
    }
  }

  /** Parse a head; null for an interim (1xx) answer, which is skipped. */
  private parseHead(text: string): number | null {
    const lines = text.split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (statusLine === null) throw new UpstreamProtocolError(`the upstream sent a malformed status line: ${JSON.stringify(lines[0]!.slice(0, 64))}`);
    const status = Number(statusLine[2]);
    const raw: string[] = [];
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.length > 0 && (line.charCodeAt(0) === 32 || line.charCodeAt(0) === 9)) {
        // Obsolete line folding: a recipient replaces it with a space (RFC 9112 §5.2).
        if (raw.length === 0) throw new UpstreamProtocolError('the upstream sent a malformed header');
        raw[raw.length - 1] = `${raw[raw.length - 1]!} ${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!TOKEN.test(name)) throw new UpstreamProtocolError(`the upstream sent a malformed header: ${JSON.stringify(line.slice(0, 64))}`);
      raw.push(name.toLowerCase(), line.slice(colon + 1).trim());
    }
    if (status >= 100 && status < 200) {
      if (status === 101) throw new UpstreamProtocolError('the upstream switched protocols');
      return null;
    }
    const request = this.request;
    const connection = rawHeader(raw, 'connection')?.toLowerCase() ?? '';
    if (statusLine[1] === '0' ? !/\bkeep-alive\b/.test(connection) : /\bclose\b/.test(connection)) this.keepAlive = false;
    const encoding = rawHeader(raw, 'transfer-encoding');
    let framing: Framing;
    if (request.method === 'HEAD' || status === 204 || status === 304) framing = { kind: 'none' };
    else if (encoding !== null) {
      // Chunked only as the last coding; any other ends with the connection (RFC 9112 §6.3).
      framing = /(?:^|,)\s*chunked\s*$/i.test(encoding) ? { kind: 'chunked' } : { kind: 'close' };
    } else {
      const length = rawHeader(raw, 'content-length');
      if (length === null) framing = { kind: 'close' };
      else {
        // Repeated equal values are one length; differing ones are an error.
        const values = new Set(length.split(',').map((v) => v.trim()));
        const only = values.size === 1 ? [...values][0]! : '';
        if (!/^\d{1,15}$/.test(only)) throw new UpstreamProtocolError(`the upstream sent an invalid content-length: ${JSON.stringify(length.slice(0, 64))}`);
        framing = Number(only) === 0 ? { kind: 'none' } : { kind: 'length', left: Number(only) };
      }
    }
    if (framing.kind === 'close') this.keepAlive = false;
    this.framing = framing;
    this.answered = true;
    let body: BodyQueue | null = null;
    let decoded = false;
    if (framing.kind !== 'none') {
      body = new BodyQueue();
      this.body = body;
      const decoder = decoderFor(rawHeader(raw, 'content-encoding'));
      decoded = decoder !== null;
      if (decoder !== null) this.decode(decoder, body);
      else {
        body.onRoom = () => this.flow(true);
        body.onGiveUp = () => this.fail(closedEarly());
      }
    }
    this.resolve({ status, statusText: statusLine[3] ?? '', rawHeaders: raw, decoded, body });
    return status;
  }

  /** Bytes after the head, by the answer's framing. */
  private readBody(data: Buffer): void {
    const framing = this.framing!;
    if (framing.kind === 'close') {
      if (data.length > 0) this.deliver(data);
      return;
    }
    if (framing.kind === 'length') {
      const take = Math.min(framing.left, data.length);
      framing.left -= take;
      if (take > 0) this.deliver(take === data.length ? data : data.subarray(0, take));
      if (framing.left === 0) this.complete(data.length > take);
      return;
    }
    if (framing.kind === 'none') {
      this.complete(data.length > 0);
      return;
    }
    this.readChunked(data);
  }

  private readChunked(data: Buffer): void {
    let at = 0;
    while (at < data.length && !this.finished) {
      if (this.chunkState === 'data') {
        const take = Math.min(this.chunkLeft, data.length - at);
        this.deliver(data.subarray(at, at + take));
        at += take;
        this.chunkLeft -= take;
        if (this.chunkLeft === 0) this.chunkState = 'data-end';
        continue;
      }
      const line = this.line(data, at);
      if (line === null) return;
      at = line.next;
      if (this.chunkState === 'data-end') {
        if (line.text !== '') throw new UpstreamProtocolError('the upstream sent a malformed chunk');
        this.chunkState = 'size';
      } else if (this.chunkState === 'size') {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line.text);
        if (size === null) throw new UpstreamProtocolError(`the upstream sent a malformed chunk size: ${JSON.stringify(line.text.slice(0, 64))}`);
        this.chunkLeft = parseInt(size[1]!, 16);
        this.chunkState = this.chunkLeft === 0 ? 'trailer' : 'data';
      } else if (line.text === '') {
        // The empty line after the trailer fields (usually right after the last chunk).
        this.complete(at < data.length);
        return;
      }
    }
  }

  /** The next CRLF-terminated line from `at`, joined with what an earlier read left; null while incomplete. */
  private line(data: Buffer, at: number): { text: string; next: number } | null {
    const end = data.indexOf(10, at);
    if (end === -1) {
      const rest = data.subarray(at);
      this.pending = this.pending === null ? Buffer.from(rest) : Buffer.concat([this.pending, rest]);
      if (this.pending.length > MAX_CHUNK_LINE) throw new UpstreamProtocolError('the upstream sent a chunk line longer than 4 KiB');
      return null;
    }
    let text = data.toString('latin1', at, end);
    if (this.pending !== null) {
      text = this.pending.toString('latin1') + text;
      this.pending = null;
    }
    if (text.length > MAX_CHUNK_LINE) throw new UpstreamProtocolError('the upstream sent a chunk line longer than 4 KiB');
    if (!text.endsWith('\r')) throw new UpstreamProtocolError('the upstream sent a malformed chunk');
    return { text: text.slice(0, -1), next: end + 1 };
  }

  private deliver(lent: Buffer): void {
    const chunk = this.shared ? Buffer.from(lent) : lent;
    if (this.decoder !== null) {
      if (!this.decoder.write(chunk)) this.flow(false);
    } else if (this.body !== null && !this.body.push(chunk)) this.flow(false);
  }

  /** The whole answer was read. Bytes beyond it (`extra`) were never asked for: the connection goes. */
  private complete(extra = false): void {
    if (this.finished) return;
    this.finished = true;
    this.detachSignal?.();
    if (this.decoder !== null) this.decoder.end();
    else this.body?.end();
    this.done(this.keepAlive && !extra);
  }

  /** A compressed body: the raw bytes go through the decoder, what it gives goes to the body. */
  private decode(decoder: Gunzip | Inflate | BrotliDecompress, body: BodyQueue): void {
    this.decoder = decoder;
    decoder.on('data', (chunk: Buffer) => {
      if (!body.push(chunk)) decoder.pause();
    });
    decoder.on('drain', () => this.flow(true));
    decoder.once('end', () => body.end());
    decoder.once('error', (error) => {
      body.fail(error);
      if (!this.finished) this.fail(error);
    });
    body.onRoom = () => decoder.resume();
    body.onGiveUp = () => {
      decoder.destroy();
      this.fail(closedEarly());
    };
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The head of a request: request line, the caller's headers, `host` and `content-length` if missing. */
function requestHead(request: ClientRequest, bodyLength: number | null): string {
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  let host = false;
  let length = false;
  const headers = request.headers;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!;
    const value = headers[i + 1]!;
    if (!TOKEN.test(name)) throw new TypeError(`Invalid header name: ${JSON.stringify(name)}`);
    if (BAD_VALUE.test(value)) throw new TypeError(`Invalid value for header ${name}`);
    if (name === 'host') host = true;
    else if (name === 'content-length') length = true;
    head += `${name}: ${value}\r\n`;
  }
  if (!host) {
    const hostname = request.hostname.includes(':') ? `[${request.hostname}]` : request.hostname;
    head += request.port === (request.secure ? 443 : 80) ? `host: ${hostname}\r\n` : `host: ${hostname}:${request.port}\r\n`;
  }
  if (!length && bodyLength !== null) head += `content-length: ${bodyLength}\r\n`;
  return `${head}\r\n`;
}

/** A keep-alive connection to one origin; carries one exchange at a time. */
class Connection {
  exchange: Exchange | null = null;
  paused = false;

  constructor(
    readonly socket: Socket,
    private readonly pool: Origin,
    lent: Buffer | null,
  ) {
    socket.setNoDelay(true);
    // A TLS socket streams what it decrypted; a plain one hands its reads to `bytes` (see `connect`).
    if (lent === null) socket.on('data', (data: Buffer) => this.bytes(data, false));
    socket.on('end', () => this.exchange?.end());
    socket.on('error', (error) => this.exchange?.end(error));
    socket.on('close', () => {
      this.exchange?.end();
      pool.closed(this);
    });
    socket.on('timeout', () => {
      if (this.exchange === null) socket.destroy();
      else this.exchange.fail(new Error(`the upstream sent nothing for ${pool.options.timeoutMs} ms`));
    });
  }

  /** What was read; false asks the socket to stop reading for now. */
  bytes(data: Buffer, shared: boolean): boolean {
    if (this.exchange === null) this.socket.destroy(); // nothing was asked: never trust such a connection
    else this.exchange.read(data, shared);
    return !this.paused;
  }

  /** Whether an idle connection can carry another request. */
  get usable(): boolean {
    return !this.socket.destroyed && this.socket.writable && !this.socket.readableEnded;
  }

  start(exchange: Exchange): void {
    this.exchange = exchange;
    const socket = this.socket;
    socket.ref();
    socket.setTimeout(this.pool.options.timeoutMs);
    const request = exchange.request;
    const body = request.body;
    const bodyLength = body === null ? null : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const head = requestHead(request, bodyLength);
    // One write: head and body together (a text body with an ASCII head as one string).
    if (body === null) socket.write(head, 'latin1');
    else if (typeof body === 'string' && ASCII.test(head)) socket.write(head + body);
    else {
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(body);
      socket.uncork();
    }
  }

  flow(on: boolean): void {
    if (on === !this.paused) return;
    this.paused = !on;
    if (on) this.socket.resume();
    else this.socket.pause();
  }

  /** The exchange is over: back to the pool, or closed. */
  release(reusable: boolean): void {
    this.exchange = null;
    if (this.paused) this.flow(true);
    // Part of the request still unsent (the upstream answered before taking it all): not reused.
    if (!reusable || !this.usable || this.socket.writableLength > 0) {
      this.socket.destroy();
      return;
    }
    this.socket.setTimeout(this.pool.options.idleTimeoutMs);
    this.pool.idle(this);
  }
}

/** The connections to one origin: idle ones (most recent first), how many are open, who waits. */
class Origin {
  private readonly free: Connection[] = [];
  private open = 0;
  private readonly waiting: Array<(connection: Connection) => void> = [];
  private session: Buffer | undefined;

  constructor(
    readonly options: ClientOptions,
    private readonly secure: boolean,
    private readonly hostname: string,
    private readonly port: number,
  ) {}

  /** A connection for the next exchange: an idle one, a new one, or the next released. */
  acquire(take: (connection: Connection) => void): () => void {
    for (;;) {
      const idle = this.free.pop();
      if (idle === undefined) break;
      if (idle.usable) {
        take(idle);
        return noop;
      }
      idle.socket.destroy();
    }
    if (this.open < this.options.maxSocketsPerOrigin) {
      take(this.connect());
      return noop;
    }
    this.waiting.push(take);
    return () => {
      const at = this.waiting.indexOf(take);
      if (at !== -1) this.waiting.splice(at, 1);
    };
  }

  idle(connection: Connection): void {
    const next = this.waiting.shift();
    if (next !== undefined) return next(connection);
    connection.socket.unref();
    this.free.push(connection);
  }

  closed(connection: Connection): void {
    this.open--;
    const at = this.free.indexOf(connection);
    if (at !== -1) this.free.splice(at, 1);
    // Someone waits for a slot this close frees: give them a new connection.
    const next = this.waiting.shift();
    if (next !== undefined) next(this.connect());
  }

  close(): void {
    for (const connection of this.free.splice(0)) connection.socket.destroy();
  }

  private connect(): Connection {
    this.open++;
    if (this.secure) {
      const tls = tlsConnect({
        host: this.hostname,
        port: this.port,
        ALPNProtocols: ['http/1.1'],
        ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
        ...(isIP(this.hostname) === 0 ? { servername: this.hostname } : {}),
        ...(this.session === undefined ? {} : { session: this.session }),
      });
      tls.on('session', (session: Buffer) => (this.session = session));
      return new Connection(tls, this, null);
    }
    // Reads land in one buffer per connection and go straight to the parser, without a
    // `Buffer` and a stream 'data' event per read; the parser copies what it keeps.
    let connection: Connection | undefined;
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const socket = netConnect({ host: this.hostname, port: this.port, onread: { buffer, callback: (n) => connection!.bytes(buffer.subarray(0, n), true) } });
    connection = new Connection(socket, this, buffer);
    return connection;
  }
}

const noop = () => {};

/** The client: origins by `protocol//host:port`, each with its own pool. */
export class Client {
  private readonly origins = new Map<string, Origin>();

  constructor(private readonly options: ClientOptions) {}

  /** Send a request; resolves with the head of the answer, whose body then streams. */
  request(request: ClientRequest): Promise<ClientAnswer>;
  /**
   * With `shape`, the call resolves with what it makes of the answer, and `failure` says what a
   * failed call rejects with: the caller's own answer, without a `then` of its own.
   */
  request<T>(request: ClientRequest, shape: (answer: ClientAnswer) => T, failure: (error: unknown) => unknown): Promise<T>;
  request<T>(request: ClientRequest, shape?: (answer: ClientAnswer) => T, failure?: (error: unknown) => unknown): Promise<T | ClientAnswer> {
    return new Promise<T | ClientAnswer>((resolveWith, rejectWith) => {
      const resolve = (answer: ClientAnswer) => {
        if (shape === undefined) return resolveWith(answer);
        let shaped: T;
        try {
          shaped = shape(answer);
        } catch (error) {
          return rejectWith(error);
        }
        resolveWith(shaped);
      };
      const reject = (error: unknown) => rejectWith(failure === undefined ? error : failure(error));
      const signal = request.signal;
      if (signal?.aborted === true) return reject(abortReason(signal));
      const key = `${request.secure ? 's' : ''}${request.hostname}:${request.port}`;
      let origin = this.origins.get(key);
      if (origin === undefined) {
        origin = new Origin(this.options, request.secure, request.hostname, request.port);
        this.origins.set(key, origin);
      }
      let connection: Connection | null = null;
      let exchange: Exchange;
      try {
        exchange = new Exchange(
          request,
          resolve,
          reject,
          (reusable) => {
            if (connection !== null) connection.release(reusable);
            else stopWaiting();
          },
          // Only while this exchange is the connection's: a decoder may still drain after it.
          (on) => {
            if (connection?.exchange === exchange) connection.flow(on);
          },
        );
      } catch (error) {
        return reject(error);
      }
      const stopWaiting = origin.acquire((c) => {
        connection = c;
        try {
          c.start(exchange);
        } catch (error) {
          exchange.fail(error);
        }
      });
    });
  }

  /** Close the idle connections (those in use close once their answer is read). */
  close(): void {
    for (const origin of this.origins.values()) origin.close();
  }
}
