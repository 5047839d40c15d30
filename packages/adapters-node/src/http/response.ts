import type { ServerResponse } from 'node:http';
import { completeBodyOf, SlotSet, takeChunks, type GatewayReply } from '@tollgate/core';

/** How long an event stream's head may wait for the first event before it is sent alone. */
const HEAD_FLUSH_MS = 20;

/** An event stream's head waiting for its first event: sent alone once `due` (performance ms) passed. */
interface WaitingHead {
  res: ServerResponse;
  due: number;
  sent: boolean;
  slot: number;
}

/**
 * The heads waiting, and one timer for them all: a stream's first event usually comes long
 * before, and a timer per stream (made, then cleared) cost more than the wait it bounds. A
 * `SlotSet`, not a `Set`: see there (a head per stream, for as long as the process lives).
 */
const waitingHeads = new SlotSet<WaitingHead>();
let headTimer: ReturnType<typeof setTimeout> | null = null;

function waitForHead(res: ServerResponse): WaitingHead {
  const head: WaitingHead = { res, due: performance.now() + HEAD_FLUSH_MS, sent: false, slot: -1 };
  head.slot = waitingHeads.add(head);
  headTimer ??= armHeadTimer(HEAD_FLUSH_MS);
  return head;
}

/** The head's wait is over (its first event came, or the body ended or failed). */
function stopWaiting(head: WaitingHead): void {
  waitingHeads.delete(head.slot, head);
}

/**
 * Not keeping the process alive: a waiting head's connection does, and the timer may outlive
 * the last head it was armed for (it is not cleared when that head's first event comes).
 */
function armHeadTimer(ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(flushDueHeads, ms).unref();
}

function flushDueHeads(): void {
  headTimer = null;
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  waitingHeads.forEach((head) => {
    if (head.due > now) {
      next = Math.min(next, head.due);
      return;
    }
    stopWaiting(head);
    if (!head.res.destroyed) {
      head.sent = true;
      head.res.flushHeaders();
    }
  });
  if (next !== Number.POSITIVE_INFINITY) headTimer = armHeadTimer(Math.ceil(next - now));
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** How a writer treats a client that stops reading. */
export interface WriteOptions {
  /**
   * A client that takes nothing of the answer for this long (ms) is disconnected, and the body
   * given up (for a stream: the upstream call is cancelled). 0 or absent: no bound.
   */
  stallMs?: number;
  /** Called once, just before a stalled client is disconnected. */
  onStall?: () => void;
}

/**
 * Resolves when `res` can take more data or closed (false), or with true when nothing drained
 * within `stallMs`: the client stopped reading.
 */
function drained(res: ServerResponse, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (stalled: boolean) => {
      clearTimeout(timer);
      res.off('drain', ok);
      res.off('close', ok);
      resolve(stalled);
    };
    const ok = () => done(false);
    res.on('drain', ok);
    res.on('close', ok);
    if (stallMs > 0) timer = setTimeout(() => done(true), stallMs);
  });
}

/** Whole bodies up to this size go out in one `end`; larger ones in slices, each waiting for `drain`. */
const WHOLE_BODY_SLICE = 64 * 1024;

/**
 * A whole body after the head was set. A small one goes in one `end` (with the head, one write).
 * A large one goes in slices, each after the socket drained, so a client that takes nothing for
 * `stallMs` is cut (and the body let go) instead of holding it in the socket's buffer for as long
 * as it likes; a client that keeps reading, however slowly, is not.
 */
async function endWhole(res: ServerResponse, body: string | Uint8Array, options: WriteOptions): Promise<void> {
  const length = typeof body === 'string' ? body.length : body.byteLength;
  if (length <= WHOLE_BODY_SLICE) {
    res.end(body);
    return;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  // Sent in slices, still framed by its length (not chunked), as one `end` would be.
  if (!res.headersSent && res.getHeader('content-length') === undefined) res.setHeader('content-length', bytes.byteLength);
  const stallMs = options.stallMs ?? 0;
  for (let at = 0; at < bytes.byteLength; at += WHOLE_BODY_SLICE) {
    if (res.destroyed) return;
    const slice = bytes.subarray(at, Math.min(at + WHOLE_BODY_SLICE, bytes.byteLength));
    if (!res.write(slice) && (await drained(res, stallMs))) {
      options.onStall?.();
      res.destroy();
      return;
    }
  }
  if (!res.destroyed) res.end();
}

/** Copy status and headers; `set-cookie` keeps its separate values. */
export function writeHead(response: Response, res: ServerResponse): void {
  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie' || HOP_BY_HOP.has(name)) return;
    res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
}

/**
 * A gateway reply → `ServerResponse`: status and headers in one `writeHead`, a whole body in one
 * `end`, an event stream chunk by chunk (see `writeFetchResponse`).
 */
export async function writeReply(reply: GatewayReply, res: ServerResponse, method = 'GET', options: WriteOptions = {}): Promise<void> {
  // An event stream the gateway produces chunk by chunk is written from its chunks directly.
  const chunks = takeChunks(reply);
  if (chunks !== undefined) {
    if (res.destroyed || method === 'HEAD') {
      await chunks.return?.().catch(() => {});
      if (!res.destroyed) res.writeHead(reply.status, reply.headers).end();
      return;
    }
    try {
      res.writeHead(reply.status, reply.headers);
    } catch (error) {
      // Nothing will read the chunks: let the upstream go (the record says how it ended).
      await chunks.return?.().catch(() => {});
      throw error;
    }
    await writeBody(fromIterator(chunks), res, (reply.headers['content-type'] ?? '').startsWith('text/event-stream'), options);
    return;
  }
  const body = reply.body;
  if (res.destroyed) {
    if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    return;
  }
  // After `writeHead` Node would no longer count a whole body itself (it would send it chunked).
  // Text goes out with the head as one string, in one write.
  if (typeof body === 'string') res.setHeader('content-length', Buffer.byteLength(body));
  else if (body instanceof Uint8Array) res.setHeader('content-length', body.byteLength);
  res.writeHead(reply.status, reply.headers);
  if (body === null || method === 'HEAD') {
    if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    res.end();
    return;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    await endWhole(res, body, options);
    return;
  }
  await writeBody(fromStream(body), res, (reply.headers['content-type'] ?? '').startsWith('text/event-stream'), options);
}

/**
 * Fetch `Response` → `ServerResponse`, chunk by chunk. When `write` returns false the next
 * read waits for `drain`, so a slow client slows the read of the body (and through it the
 * upstream) instead of growing a buffer. When the client goes away the body is cancelled,
 * which the gateway turns into an aborted upstream call and a `cancelled` usage record.
 */
export async function writeFetchResponse(response: Response, res: ServerResponse, method = 'GET', options: WriteOptions = {}): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  writeHead(response, res);
  // A body the gateway already holds whole (non-stream answers, errors): one write, no stream.
  const complete = completeBodyOf(response);
  if (complete !== undefined && method !== 'HEAD') {
    await endWhole(res, complete, options);
    return;
  }
  if (response.body === null || method === 'HEAD') {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  await writeBody(fromStream(response.body), res, (response.headers.get('content-type') ?? '').startsWith('text/event-stream'), options);
}

/** A body read chunk by chunk, whichever kind it is; `stop` gives the rest up. */
interface Chunks {
  next(): Promise<IteratorResult<Uint8Array, unknown>>;
  stop(): Promise<unknown>;
}

function fromStream(body: ReadableStream<Uint8Array>): Chunks {
  const reader = body.getReader();
  return { next: () => reader.read(), stop: () => reader.cancel() };
}

function fromIterator(chunks: AsyncIterator<Uint8Array>): Chunks {
  return { next: () => chunks.next(), stop: async () => chunks.return?.() };
}

/**
 * A body stream after the head was set: honours `drain`, cancels on close, cuts the connection
 * on failure, and disconnects a client that takes nothing for `options.stallMs` (the body is
 * given up: for a gateway stream that cancels the upstream call, and the usage is settled from
 * what was relayed).
 */
async function writeBody(reader: Chunks, res: ServerResponse, eventStream: boolean, options: WriteOptions): Promise<void> {
  const stallMs = options.stallMs ?? 0;
  const onClose = () => {
    if (!res.writableFinished) void reader.stop().catch(() => {});
  };
  res.on('close', onClose);
  // An event stream shows its head without waiting for the first event for long; when that
  // event is ready soon (the usual case) the head leaves with it in one write.
  // (`headersSent` cannot tell: after `writeHead` it is true while the head still waits.)
  let wrote = false;
  let head = eventStream ? waitForHead(res) : null;
  try {
    for (;;) {
      const { done, value } = await reader.next();
      if (head !== null) {
        stopWaiting(head);
        wrote = head.sent;
        head = null;
      }
      if (done) break;
      if (res.destroyed) {
        await reader.stop().catch(() => {});
        return;
      }
      wrote = true;
      if (!res.write(value) && (await drained(res, stallMs))) {
        // The client stopped reading: it goes, and so does the body.
        options.onStall?.();
        await reader.stop().catch(() => {});
        res.destroy();
        return;
      }
    }
    if (!res.destroyed) res.end();
  } catch {
    // The body failed: cut the connection so the client sees a truncated answer — after what
    // was already written (the head, chunks still in the socket's buffer) has left.
    await reader.stop().catch(() => {});
    const socket = res.socket;
    if (socket !== null && !res.destroyed) {
      if (!wrote && head?.sent !== true) res.flushHeaders();
      socket.end(() => socket.destroy());
      // A client that stopped reading does not keep the socket: it goes after a grace period.
      setTimeout(() => socket.destroy(), 2000).unref();
    } else res.destroy();
  } finally {
    if (head !== null) stopWaiting(head);
    res.off('close', onClose);
  }
}
