import type { ServerResponse } from 'node:http';
import { completeBodyOf } from '@tollgate/core';

/** How long an event stream's head may wait for the first event before it is sent alone. */
const HEAD_FLUSH_MS = 20;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** Resolves when `res` can take more data, or when it closed (then the caller stops writing). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
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
 * Fetch `Response` → `ServerResponse`, chunk by chunk. When `write` returns false the next
 * read waits for `drain`, so a slow client slows the read of the body (and through it the
 * upstream) instead of growing a buffer. When the client goes away the body is cancelled,
 * which the gateway turns into an aborted upstream call and a `cancelled` usage record.
 */
export async function writeFetchResponse(response: Response, res: ServerResponse, method = 'GET'): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  writeHead(response, res);
  // A body the gateway already holds whole (non-stream answers, errors): one write, no stream.
  const complete = completeBodyOf(response);
  if (complete !== undefined && method !== 'HEAD') {
    res.end(complete);
    return;
  }
  if (response.body === null || method === 'HEAD') {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => {
    if (!res.writableFinished) void reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  // An event stream shows its head without waiting for the first event for long; when that
  // event is ready soon (the usual case) the head leaves with it in one write.
  let headTimer: ReturnType<typeof setTimeout> | undefined;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    headTimer = setTimeout(() => {
      if (!res.headersSent && !res.destroyed) res.flushHeaders();
    }, HEAD_FLUSH_MS);
  }
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (headTimer !== undefined) {
        clearTimeout(headTimer);
        headTimer = undefined;
      }
      if (done) break;
      if (res.destroyed) {
        await reader.cancel().catch(() => {});
        return;
      }
      if (!res.write(value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch {
    // The body failed: cut the connection so the client sees a truncated answer — after what
    // was already written (the head, chunks still in the socket's buffer) has left.
    await reader.cancel().catch(() => {});
    const socket = res.socket;
    if (socket !== null && !res.destroyed) {
      if (!res.headersSent) res.flushHeaders();
      socket.end(() => socket.destroy());
      // A client that stopped reading does not keep the socket: it goes after a grace period.
      setTimeout(() => socket.destroy(), 2000).unref();
    } else res.destroy();
  } finally {
    clearTimeout(headTimer);
    res.off('close', onClose);
  }
}
