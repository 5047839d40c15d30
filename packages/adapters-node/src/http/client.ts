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
import { BodyQueue, DEFAULT_BODY_LIMITS, type BodyQueueLimits } from './body-queue.js';
import { Deadlines, UpstreamTimeoutError, type Expiring } from './deadlines.js';

export { BodyQueue } from './body-queue.js';

export interface ClientOptions {
  /**
   * Idle keep-alive connections are closed after this long (ms), unless the upstream said how
   * long it keeps them (`keep-alive: timeout=N`): then one second less than that, at most ten
   * minutes (as undici), and never longer than `timeoutMs`, whose silence timer also runs while
   * a connection is idle. 0 (and no hint): connections are not reused.
   */
  idleTimeoutMs: number;
  /**
   * An upstream silent this long (no head yet, or no body bytes since the last) fails the call;
   * time the consumer does not read does not count.
   */
  timeoutMs: number;
  /** Opening a connection (TCP and TLS) may take this long. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /**
   * The final head must have come this long after the call began (waiting for a connection
   * included); interim heads and a head that trickles in do not extend it. Default `timeoutMs`.
   */
  headersTimeoutMs?: number;
  /** One call, from its start to the answer's last byte, may take this long. Default unbounded. */
  attemptTimeoutMs?: number;
  /** Bounds of a body's unread part (bytes and chunks). */
  bodyLimits?: BodyQueueLimits;
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

const MAX_HEAD_BYTES = 64 * 1024;
/** Each plain connection reads into a buffer of its own this large. */
const READ_BUFFER_BYTES = 16 * 1024;
const MAX_CHUNK_LINE = 4096;
// eslint-disable-next-line no-control-regex -- \x00 starts the ASCII range this checks for
const ASCII = /^[\x00-\x7f]*$/;
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');

/** tchar (RFC 9110 §5.6.2) by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;

function isToken(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] === 0) return false;
  }
  return true;
}

/**
 * Check `HTTP/1.x NNN[ reason]` in `text` up to `end`; returns x. The reason phrase may hold
 * HTAB, SP and visible characters only.
 */
function statusLine(text: string, end: number): number {
  let ok = end >= 12 && text.startsWith('HTTP/1.') && text.charCodeAt(8) === 32;
  const minor = text.charCodeAt(7) - 48;
  ok &&= minor === 0 || minor === 1;
  for (let i = 9; ok && i < 12; i++) ok = text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
  ok &&= text.charCodeAt(9) !== 48 && (end === 12 || text.charCodeAt(12) === 32);
  for (let i = 13; ok && i < end; i++) {
    const c = text.charCodeAt(i);
    ok = c === 9 || (c >= 32 && c !== 127);
  }
  if (!ok) throw new UpstreamProtocolError(`the upstream sent a malformed status line: ${JSON.stringify(text.slice(0, Math.min(end, 64)))}`);
  return minor;
}

/**
 * A field value between `from` and `to` without the optional whitespace around it (SP and HTAB
 * only). NUL and a bare CR or LF are refused: no recipient may pass them on.
 */
function fieldValue(text: string, from: number, to: number): string {
  while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
  while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0 || c === 10 || c === 13) throw new UpstreamProtocolError('the upstream sent a header value with NUL, CR or LF');
  }
  return text.slice(from, to);
}

const ONCE = { once: true } as const;

/** The error a body fails with when the connection ends before the body does. */
function closedEarly(): Error {
  return new Error('the upstream closed the connection before the body ended');
}

/** A response the client could not read (malformed head or framing): the connection is closed. */
export class UpstreamProtocolError extends Error {
  override readonly name = 'UpstreamProtocolError';
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

/** What every call of one client shares: its hard deadlines and body bounds. */
interface CallBounds {
  deadlines: Deadlines;
  headersMs: number;
  attemptMs: number;
  limits: BodyQueueLimits;
}

/**
 * One request on one connection, and the parse of its answer. The bytes of the answer arrive
 * through `read`; the head resolves the call, the rest goes to the body.
 */
/** What the caller of `Client.request` waits with. */
interface Caller {
  resolveWith(value: unknown): void;
  rejectWith(error: unknown): void;
  shape: ((answer: ClientAnswer) => unknown) | undefined;
  failure: ((error: unknown) => unknown) | undefined;
}

class Exchange implements Expiring {
  /** How the answer's body is delimited; null before its head. */
  private framing: Framing | null = null;
  /** An incomplete head or chunk line, kept until the rest arrives. */
  private pending: Buffer | null = null;
  private chunkState: ChunkState = 'size';
  private chunkLeft = 0;
  /** The answer's body (what the caller reads); the request's is `body`. */
  private answerBody: BodyQueue | null = null;
  /** Whether the bytes `read` gets live in a buffer the next read overwrites (then what is kept is copied). */
  private shared = false;
  /** The request's body, written after `head` (let go once the exchange is over). */
  body: string | Uint8Array | null;
  private decoder: Gunzip | Inflate | BrotliDecompress | null = null;
  private answered = false;
  private finished = false;
  private keepAlive = true;
  /** How long the upstream said it keeps the connection open when idle (`keep-alive: timeout=N`), ms. */
  private keptFor: number | null = null;
  /** Body bytes of the current read, handed on together once the read is parsed. */
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private readonly started = performance.now();
  /** When the current hard bound runs out: the head's, then the whole call's. */
  deadline: number;
  deadlineSlot = -1;

  /** The connection carrying the exchange, once it has one. */
  private connection: Connection | null = null;
  /** Gives up the wait for a connection (while there is none). */
  private stopWaiting: () => void = noop;

  private signal: AbortSignal | undefined;
  private readonly method: string;
  /**
   * The caller's promise (settled once, with `shape` of the answer's head or `failure` of the
   * error), let go once the exchange is over: an exchange that something still points at (a
   * closure the body queue keeps, a stale slot) then holds nothing of the caller's request.
   */
  private caller: Caller | null;

  constructor(
    private readonly bounds: CallBounds,
    request: ClientRequest,
    /** The request head, checked and ready to write (credentials in it: let go once over). */
    public head: string,
    caller: Caller,
  ) {
    this.body = request.body;
    this.signal = request.signal;
    this.method = request.method;
    this.caller = caller;
    this.deadline = this.started + Math.min(bounds.headersMs, bounds.attemptMs);
    bounds.deadlines.add(this);
    // The exchange itself listens (`handleEvent`): no closures per call.
    request.signal?.addEventListener('abort', this, ONCE);
  }

  /** Wait for a connection from `origin` (or take one at once), then send. */
  send(origin: Origin): void {
    this.stopWaiting = origin.acquire(this);
  }

  /** The connection the exchange goes out on. */
  take(connection: Connection): void {
    this.connection = connection;
    connection.start(this);
  }

  /** The head of the answer: the call resolves (with its shape, if the caller gave one). */
  private resolve(answer: ClientAnswer): void {
    const caller = this.caller;
    if (caller === null) return;
    if (caller.shape === undefined) return caller.resolveWith(answer);
    let shaped: unknown;
    try {
      shaped = caller.shape(answer);
    } catch (error) {
      // Nobody will read this body: give it up, so its connection is not held.
      void answer.body?.return();
      return caller.rejectWith(error);
    }
    caller.resolveWith(shaped);
  }

  private reject(error: unknown): void {
    const caller = this.caller;
    if (caller === null) return;
    let shaped = error;
    // A `failure` that throws still ends the call: with what it threw, as `shape`'s throw does.
    if (caller.failure !== undefined) {
      try {
        shaped = caller.failure(error);
      } catch (thrown) {
        shaped = thrown;
      }
    }
    caller.rejectWith(shaped);
  }

  /** Over (its body read, or the call failed): nothing of the caller's is kept, its credentials included. */
  private letGo(): void {
    this.caller = null;
    this.body = null;
    this.head = '';
    this.signal = undefined;
  }

  /**
   * The exchange is over: whether the connection may carry another, and how long the upstream
   * said it keeps it open when idle (ms), if it did.
   */
  private done(reusable: boolean, keptFor: number | null): void {
    if (this.connection !== null) this.connection.release(reusable, keptFor);
    else this.stopWaiting();
  }

  /** Pause or resume reading the connection, only while this exchange is its own: a decoder may still drain after it. */
  private flow(on: boolean): void {
    if (this.connection?.exchange === this) this.connection.flow(on);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.fail(abortReason(this.signal!));
  }

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
      this.flushBatch();
    } catch (error) {
      // What was read before the fault is the body's; then the fault.
      this.flushBatch();
      this.fail(error);
    }
  }

  /** The current hard bound ran out (the client's `Deadlines` calls this). */
  expire(): void {
    const head = !this.answered && this.bounds.headersMs < this.bounds.attemptMs;
    this.fail(new UpstreamTimeoutError(head ? 'headers' : 'attempt', head ? this.bounds.headersMs : this.bounds.attemptMs));
  }

  /** The connection ended (the peer's FIN or a close): the end of a close-delimited body, else a failure. */
  end(error?: unknown): void {
    if (this.finished) return;
    if (error === undefined && this.framing?.kind === 'close') {
      this.keepAlive = false;
      this.complete();
      return;
    }
    const signal = this.signal;
    this.fail(
      signal?.aborted === true
        ? abortReason(signal)
        : this.answered
          ? closedEarly()
          : (error ?? new Error('the upstream closed the connection without answering')),
    );
  }

  /** Fail whatever is not over yet: the call before the head, the body after it. The connection is not reused. */
  fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.keepAlive = false;
    this.signal?.removeEventListener('abort', this);
    this.bounds.deadlines.delete(this);
    try {
      if (!this.answered) {
        this.answered = true;
        this.reject(error);
      } else if (this.decoder !== null) this.decoder.destroy(error instanceof Error ? error : new Error(String(error)));
      else this.answerBody?.fail(error);
    } finally {
      // Whatever a caller's callback does, the connection goes back and nothing of the call is kept.
      this.done(false, null);
      this.letGo();
    }
  }

  /** The head, once whole; returns the bytes after it, or null while it is incomplete. */
  private readHead(data: Buffer): Buffer | null {
    let buffer = this.pending === null ? data : Buffer.concat([this.pending, data]);
    for (;;) {
      // Search only where the end could be: a previous miss can overlap the new bytes by 3.
      const from = this.pending === null ? 0 : Math.max(0, this.pending.length - 3);
      const end = buffer.indexOf(CRLF2, from);
      if (end === -1 ? buffer.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES)
        throw new UpstreamProtocolError('the upstream response head is larger than 64 KiB');
      if (end === -1) {
        // Bytes of the lent read buffer (all of it, or what follows an interim head) are copied.
        this.pending = this.shared && buffer.buffer === data.buffer ? Buffer.from(buffer) : buffer;
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
    let lineEnd = text.indexOf('\r\n');
    if (lineEnd === -1) lineEnd = text.length;
    const minor = statusLine(text, lineEnd);
    const status = (text.charCodeAt(9) - 48) * 100 + (text.charCodeAt(10) - 48) * 10 + (text.charCodeAt(11) - 48);
    const reason = lineEnd > 13 ? text.slice(13, lineEnd) : '';
    // One pass over the fields, noting the four that decide how the answer is framed.
    const raw: string[] = [];
    let connection = '';
    let transferEncoding: string | null = null;
    let contentLength: string | null = null;
    let contentEncoding: string | null = null;
    for (let at = lineEnd + 2; at < text.length;) {
      let end = text.indexOf('\r\n', at);
      if (end === -1) end = text.length;
      const first = text.charCodeAt(at);
      if (first === 32 || first === 9) {
        // Obsolete line folding: a recipient replaces it with a space (RFC 9112 §5.2).
        if (raw.length === 0) throw new UpstreamProtocolError('the upstream sent a malformed header');
        raw[raw.length - 1] = `${raw[raw.length - 1]!} ${fieldValue(text, at, end)}`;
        at = end + 2;
        continue;
      }
      const colon = text.indexOf(':', at);
      if (colon === -1 || colon > end || !isToken(text, at, colon))
        throw new UpstreamProtocolError(`the upstream sent a malformed header: ${JSON.stringify(text.slice(at, Math.min(end, at + 64)))}`);
      const name = text.slice(at, colon).toLowerCase();
      const value = fieldValue(text, colon + 1, end);
      raw.push(name, value);
      switch (name) {
        case 'connection':
          connection += `,${value.toLowerCase()}`;
          break;
        case 'transfer-encoding':
          transferEncoding = transferEncoding === null ? value : `${transferEncoding}, ${value}`;
          break;
        case 'content-length':
          contentLength = contentLength === null ? value : `${contentLength}, ${value}`;
          break;
        case 'content-encoding':
          contentEncoding = contentEncoding === null ? value : `${contentEncoding}, ${value}`;
          break;
        case 'keep-alive': {
          // The final answer's own; an upstream that says two things is taken at the shorter.
          const seconds = status >= 200 ? KEEP_ALIVE_TIMEOUT.exec(value) : null;
          if (seconds !== null) this.keptFor = Math.min(this.keptFor ?? Number.POSITIVE_INFINITY, Number(seconds[1]) * 1000);
          break;
        }
      }
      at = end + 2;
    }
    if (status < 200) {
      if (status === 101) throw new UpstreamProtocolError('the upstream switched protocols');
      return null;
    }
    if (minor === 0 ? !/\bkeep-alive\b/.test(connection) : /\bclose\b/.test(connection)) this.keepAlive = false;
    let framing: Framing;
    if (this.method === 'HEAD' || status === 204 || status === 304) framing = { kind: 'none' };
    else if (transferEncoding !== null) {
      // Both framings at once is how responses get smuggled: refused, as node:http does.
      if (contentLength !== null) throw new UpstreamProtocolError('the upstream sent both transfer-encoding and content-length');
      // Chunked only as the last coding; any other ends with the connection (RFC 9112 §6.3).
      // An HTTP/1.0 answer with a transfer coding is faulty framing: its connection is not reused.
      framing = /(?:^|,)[ \t]*chunked[ \t]*$/i.test(transferEncoding) ? { kind: 'chunked' } : { kind: 'close' };
      if (minor === 0) this.keepAlive = false;
    } else if (contentLength === null) framing = { kind: 'close' };
    else {
      // One length, digits only: a repeated one (even the same value, which RFC 9110 lets a
      // recipient take) is refused, as llhttp does, so the two never read one stream two ways.
      if (!/^\d{1,15}$/.test(contentLength))
        throw new UpstreamProtocolError(`the upstream sent an invalid content-length: ${JSON.stringify(contentLength.slice(0, 64))}`);
      framing = Number(contentLength) === 0 ? { kind: 'none' } : { kind: 'length', left: Number(contentLength) };
    }
    if (framing.kind === 'close') this.keepAlive = false;
    this.framing = framing;
    this.answered = true;
    // From the head on, only the whole call's deadline is left.
    this.deadline = this.started + this.bounds.attemptMs;
    let body: BodyQueue | null = null;
    let decoded = false;
    if (framing.kind !== 'none') {
      body = new BodyQueue(this.bounds.limits);
      this.answerBody = body;
      const decoder = decoderFor(contentEncoding);
      decoded = decoder !== null;
      if (decoder !== null) this.decode(decoder, body);
      else {
        body.onRoom = () => this.flow(true);
        body.onGiveUp = () => this.fail(closedEarly());
      }
    }
    this.resolve({ status, statusText: reason, rawHeaders: raw, decoded, body });
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
        // No whitespace between the size and its extensions (as llhttp: a parser that allowed it
        // would read a stream another refuses, the kind of disagreement smuggling lives on).
        const size = /^([0-9a-fA-F]{1,12})(?:;.*)?$/.exec(line.text);
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

  /**
   * Body bytes: kept until the read is parsed, then handed on as one chunk (however many chunks
   * of the chunked framing it held: a body a byte per chunk costs one buffer per read).
   */
  private deliver(lent: Buffer): void {
    this.batch.push(lent);
    this.batchBytes += lent.length;
  }

  private flushBatch(): void {
    const n = this.batch.length;
    if (n === 0) return;
    // Bytes of a lent read buffer are copied (concat always copies).
    const chunk = n === 1 ? (this.shared ? Buffer.from(this.batch[0]!) : this.batch[0]!) : Buffer.concat(this.batch, this.batchBytes);
    this.batch.length = 0; // what it held is handed on (or copied) by now
    this.batchBytes = 0;
    if (this.decoder !== null) {
      if (!this.decoder.write(chunk)) this.flow(false);
    } else if (this.answerBody !== null && !this.answerBody.push(chunk)) this.flow(false);
  }

  /** The whole answer was read. Bytes beyond it (`extra`) were never asked for: the connection goes. */
  private complete(extra = false): void {
    if (this.finished) return;
    this.flushBatch();
    this.finished = true;
    this.signal?.removeEventListener('abort', this);
    this.bounds.deadlines.delete(this);
    if (this.decoder !== null) this.decoder.end();
    else this.answerBody?.end();
    this.done(this.keepAlive && !extra, this.keptFor);
    this.letGo();
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

/**
 * Headers the client writes itself or that would change how the connection is framed: a caller's
 * are dropped (a wrong `content-length` would make the rest of the body read as another request).
 */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer', 'expect']);
/** A header value may hold Latin-1 characters except NUL, CR and LF. */
const BAD_VALUE = /[\0\r\n\u0100-\uffff]/;
/** A request target in origin form: no whitespace or control characters. */
const TARGET = /^\/[^\0- \x7f]*$/;

/**
 * The head of a request: request line, the caller's headers (checked: a name is a token, a value
 * cannot break the head), `host` when absent and the body's own `content-length`. Throws a
 * TypeError, as `fetch` does, before anything is sent.
 */
function requestHead(request: ClientRequest, bodyLength: number | null): string {
  if (!isToken(request.method, 0, request.method.length)) throw new TypeError(`Invalid method: ${JSON.stringify(request.method)}`);
  if (!TARGET.test(request.path)) throw new TypeError(`Invalid request target: ${JSON.stringify(request.path)}`);
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  let host = false;
  const headers = request.headers;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!;
    const value = headers[i + 1]!;
    if (!isToken(name, 0, name.length)) throw new TypeError(`Invalid header name: ${JSON.stringify(name)}`);
    if (BAD_VALUE.test(value)) throw new TypeError(`Invalid value for header ${name}`);
    if (OWN_HEADERS.has(name)) continue;
    if (name === 'host') host = true;
    head += `${name}: ${value}\r\n`;
  }
  if (!host) {
    const hostname = request.hostname.includes(':') ? `[${request.hostname}]` : request.hostname;
    head += request.port === (request.secure ? 443 : 80) ? `host: ${hostname}\r\n` : `host: ${hostname}:${request.port}\r\n`;
  }
  if (bodyLength !== null) head += `content-length: ${bodyLength}\r\n`;
  return `${head}\r\n`;
}

/** A keep-alive connection to one origin; carries one exchange at a time. */
class Connection {
  exchange: Exchange | null = null;
  paused = false;
  /** Until when it may be reused (`performance.now()` ms); set when it becomes idle. */
  idleUntil = 0;

  constructor(
    readonly socket: Socket,
    private readonly pool: Origin,
    /** The pool's generation when this connection was opened: an older one is not reused. */
    readonly generation: number,
    lent: boolean,
  ) {
    socket.setNoDelay(true);
    // Set once: silence while a call is under way fails it; an idle connection silent this long is closed.
    socket.setTimeout(pool.options.timeoutMs);
    // A TLS socket streams what it decrypted; a plain one hands its reads to `bytes` (see `connect`).
    if (!lent) socket.on('data', (data: Buffer) => this.bytes(data, false));
    socket.on('end', () => this.exchange?.end());
    socket.on('error', (error) => this.exchange?.end(error));
    socket.on('close', () => {
      this.exchange?.end();
      pool.closed(this);
    });
    socket.on('timeout', () => {
      if (this.exchange === null) socket.destroy();
      else this.exchange.fail(new UpstreamTimeoutError('body', pool.options.timeoutMs));
    });
  }

  /** What was read; false asks the socket to stop reading for now. */
  bytes(data: Buffer, shared: boolean): boolean {
    if (this.exchange === null)
      this.socket.destroy(); // nothing was asked: never trust such a connection
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
    const { head, body } = exchange;
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

  /**
   * Read on, or stop reading while the body waits unread. While stopped, the silence timeout is
   * off: a slow reader is not a silent upstream.
   */
  flow(on: boolean): void {
    if (on === !this.paused) return;
    this.paused = !on;
    if (on) {
      this.socket.setTimeout(this.pool.options.timeoutMs);
      this.socket.resume();
    } else {
      this.socket.setTimeout(0);
      this.socket.pause();
    }
  }

  /**
   * The exchange is over: back to the pool, or closed. An upstream that said how long it keeps
   * an idle connection (`keptFor`) is trusted for one second less, so a call never goes out on
   * a connection it is closing.
   */
  release(reusable: boolean, keptFor: number | null): void {
    this.exchange = null;
    if (this.paused) this.flow(true);
    const keepMs = keptFor === null ? this.pool.options.idleTimeoutMs : Math.min(keptFor - KEEP_ALIVE_MARGIN_MS, KEEP_ALIVE_MAX_MS);
    // Part of the request still unsent (the upstream answered before taking it all): not reused.
    if (!reusable || keepMs <= 0 || !this.usable || this.socket.writableLength > 0 || this.generation !== this.pool.generation) {
      this.socket.destroy();
      return;
    }
    this.pool.idle(this, keepMs);
  }
}

/** The connections to one origin: idle ones (most recent last), how many are open, who waits. */
class Origin {
  readonly free: Connection[] = [];
  private open = 0;
  private readonly waiting: Exchange[] = [];
  private session: Buffer | undefined;
  /** Bumped by `close()`: connections opened before it close once their answer is read. */
  generation = 0;

  constructor(
    readonly options: ClientOptions,
    private readonly secure: boolean,
    private readonly hostname: string,
    private readonly port: number,
    /** Told when a connection becomes idle (the sweep starts), and when the origin has nothing left. */
    private readonly events: { idle(): void; empty(origin: Origin): void },
  ) {}

  /** A connection for the next exchange: an idle one, a new one, or the next released. */
  acquire(exchange: Exchange): () => void {
    for (;;) {
      const idle = this.free.pop();
      if (idle === undefined) break;
      // Past its time (the sweep has not come by yet): the upstream may be closing it.
      if (idle.usable && idle.idleUntil > performance.now()) {
        exchange.take(idle);
        return noop;
      }
      idle.socket.destroy();
    }
    if (this.open < this.options.maxSocketsPerOrigin) {
      exchange.take(this.connect());
      return noop;
    }
    this.waiting.push(exchange);
    return () => {
      const at = this.waiting.indexOf(exchange);
      if (at !== -1) this.waiting.splice(at, 1);
    };
  }

  idle(connection: Connection, keepMs: number): void {
    const next = this.waiting.shift();
    if (next !== undefined) return next.take(connection);
    connection.socket.unref();
    connection.idleUntil = performance.now() + keepMs;
    this.free.push(connection);
    this.events.idle();
  }

  /** Close the idle connections whose time is up at `now`. */
  sweep(now: number): void {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const c = this.free[i]!;
      if (c.idleUntil > now) continue;
      this.free.splice(i, 1);
      c.socket.destroy();
    }
  }

  closed(connection: Connection): void {
    this.open--;
    const at = this.free.indexOf(connection);
    if (at !== -1) this.free.splice(at, 1);
    // Someone waits for a slot this close frees: give them a new connection.
    const next = this.waiting.shift();
    if (next !== undefined) next.take(this.connect());
    else if (this.open === 0) this.events.empty(this);
  }

  close(): void {
    this.generation++;
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
      this.boundConnect(tls, 'secureConnect');
      return new Connection(tls, this, this.generation, false);
    }
    // Reads land in one buffer per connection and go straight to the parser, without a
    // `Buffer` and a stream 'data' event per read; the parser copies what it keeps.
    let connection: Connection | undefined;
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const socket = netConnect({ host: this.hostname, port: this.port, onread: { buffer, callback: (n) => connection!.bytes(buffer.subarray(0, n), true) } });
    this.boundConnect(socket, 'connect');
    connection = new Connection(socket, this, this.generation, true);
    return connection;
  }

  /** A connection not open (TCP, and TLS for https) within the connect bound is destroyed: its call fails. */
  private boundConnect(socket: Socket, ready: 'connect' | 'secureConnect'): void {
    const ms = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const timer = setTimeout(() => socket.destroy(new UpstreamTimeoutError('connect', ms)), ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    socket.once(ready, clear);
    socket.once('close', clear);
  }
}

const noop = () => {};
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** `keep-alive: timeout=N`: how many seconds the upstream keeps an idle connection. */
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout\s*=\s*"?(\d{1,9})/i;
/** An upstream's keep-alive time is trusted for this much less (its close may be on the way). */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** However long an upstream says it keeps a connection, it is not kept idle longer than this. */
const KEEP_ALIVE_MAX_MS = 600_000;

/** The client: origins by host and port, each with its own pool. */
export class Client {
  private readonly origins = new Map<string, Origin>();
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private readonly events = {
    idle: () => {
      // One timer for every idle connection (none while nothing is idle), instead of a timer
      // per connection reset on every call.
      if (this.sweeper !== null) return;
      this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.floor(this.options.idleTimeoutMs / 4)));
      this.sweeper.unref();
    },
    empty: (origin: Origin) => {
      for (const [key, o] of this.origins) if (o === origin) this.origins.delete(key);
    },
  };

  private readonly bounds: CallBounds;

  constructor(private readonly options: ClientOptions) {
    const headersMs = options.headersTimeoutMs ?? options.timeoutMs;
    const attemptMs = options.attemptTimeoutMs ?? Number.POSITIVE_INFINITY;
    this.bounds = {
      deadlines: new Deadlines(Deadlines.tickFor(Math.min(headersMs, attemptMs))),
      headersMs,
      attemptMs,
      limits: options.bodyLimits ?? DEFAULT_BODY_LIMITS,
    };
  }

  /** Send a request; resolves with the head of the answer, whose body then streams. */
  request(request: ClientRequest): Promise<ClientAnswer>;
  /**
   * With `shape`, the call resolves with what it makes of the answer, and `failure` says what a
   * failed call rejects with: the caller's own answer, without a `then` of its own.
   */
  request<T>(request: ClientRequest, shape: (answer: ClientAnswer) => T, failure: (error: unknown) => unknown): Promise<T>;
  request<T>(request: ClientRequest, shape?: (answer: ClientAnswer) => T, failure?: (error: unknown) => unknown): Promise<T | ClientAnswer> {
    return new Promise<T | ClientAnswer>((resolveWith, rejectWith) => {
      const signal = request.signal;
      if (signal?.aborted === true) return rejectWith(failure === undefined ? abortReason(signal) : failure(abortReason(signal)));
      const body = request.body;
      let head: string;
      try {
        // Checked before any connection is taken: a bad header costs none.
        head = requestHead(request, body === null ? null : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      } catch (error) {
        return rejectWith(failure === undefined ? error : failure(error));
      }
      const key = `${request.secure ? 's' : ''}${request.hostname}:${request.port}`;
      let origin = this.origins.get(key);
      if (origin === undefined) {
        origin = new Origin(this.options, request.secure, request.hostname, request.port, this.events);
        this.origins.set(key, origin);
      }
      new Exchange(this.bounds, request, head, { resolveWith, rejectWith, shape, failure }).send(origin);
    });
  }

  /** Close the idle connections now, and those in use once their answer is read; later calls open new ones. */
  close(): void {
    for (const origin of this.origins.values()) origin.close();
  }

  private sweep(): void {
    const now = performance.now();
    let idle = false;
    for (const origin of this.origins.values()) {
      origin.sweep(now);
      idle ||= origin.free.length > 0;
    }
    if (!idle && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }
}
