import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientStalledError, GatewayError, pairedReply, type Gateway, type GatewayRequest } from '@tollgate/core';
import { toGatewayRequest, type ToRequestOptions } from './request.js';
import { writeFetchResponse, writeReply } from './response.js';

/** The default body cap: 32 MiB, the largest any vendor API accepts (as the gateway's own default). */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export interface NodeListenerOptions {
  /** Request bodies larger than this are refused with 413 (in the caller's format). Default 32 MiB. */
  maxRequestBytes?: number;
  /** Called with anything unexpected (the client still gets a 500 or a cut connection). */
  onError?: (error: unknown) => void;
  /**
   * A client that takes nothing of its answer for this long (ms) is disconnected; for a stream
   * the upstream call is cancelled and the usage settled from what was relayed (the record
   * says `client_stalled`). Default 300 000 (5 minutes); 0 turns the bound off.
   */
  stallTimeoutMs?: number;
}

/** The default of `stallTimeoutMs`: as long as an upstream body may stay silent. */
export const DEFAULT_STALL_TIMEOUT_MS = 300_000;

export interface HandleNodeRequestOptions extends NodeListenerOptions {
  /** The path and query the gateway sees (default `req.url`): e.g. without a mount prefix. */
  url?: string;
  /** A body an earlier middleware already read. */
  body?: Uint8Array;
  /**
   * Called with the gateway's answer (its status and request id) once it is known, before it is
   * written — also when the client has left and nothing will be written (an access log uses it).
   */
  onAnswer?: (answer: { status: number; requestId: string | null }) => void;
}

/**
 * What the adapters need of a gateway: `handle`. A gateway made by `createGateway` also has
 * `reply`, which they use instead while `handle` is still that gateway's own.
 */
export type GatewayLike = Pick<Gateway, 'handle'> & Partial<Pick<Gateway, 'reply'>>;

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

const noop = () => {};

/**
 * Serve one Node request through the gateway. Never rejects: failures become a 500 (before
 * the head was sent) or a cut connection (after), and go to `onError`.
 */
export async function handleNodeRequest(
  gateway: GatewayLike,
  req: IncomingMessage,
  res: ServerResponse,
  options: HandleNodeRequestOptions = {},
): Promise<void> {
  req.on('error', noop);
  res.on('error', noop);
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new GatewayError('cancelled', 'The client closed the connection.'));
  };
  res.on('close', onClose);
  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const writeOptions = { stallMs, onStall: () => controller.abort(clientStalledError(stallMs)) };
  let deferred: Array<() => Promise<void>> | undefined;
  let request: GatewayRequest;
  try {
    const toRequest: ToRequestOptions = { maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, signal: controller.signal };
    if (options.url !== undefined) toRequest.url = options.url;
    if (options.body !== undefined) toRequest.body = options.body;
    request = toGatewayRequest(req, toRequest);
  } catch {
    // Not expressible as a Fetch request (a CONNECT or TRACE method, say): nothing for the gateway.
    res.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'The request could not be read.' } }));
    return;
  }
  try {
    // A gateway's own `reply` answers with a plain reply (no `Response` to build and take
    // apart); a wrapped `handle`, or anything else that only has `handle`, is called as is.
    const replyOf = pairedReply(gateway);
    if (replyOf !== undefined) {
      // Settling and recording a whole answer happen once it is written, not before.
      const reply = await replyOf(request, { defer: (work) => void (deferred ??= []).push(work) });
      options.onAnswer?.({ status: reply.status, requestId: reply.headers['x-tollgate-request-id'] ?? null });
      closeIfUnread(req, res);
      await writeReply(reply, res, req.method, writeOptions);
    } else {
      const response = await gateway.handle(request);
      options.onAnswer?.({ status: response.status, requestId: response.headers.get('x-tollgate-request-id') });
      closeIfUnread(req, res);
      await writeFetchResponse(response, res, req.method, writeOptions);
    }
  } catch (error) {
    (options.onError ?? noop)(error);
    if (!res.headersSent && !res.destroyed) {
      res.statusCode = 500;
      res.setHeader('content-type', 'application/json');
      res.setHeader('connection', 'close');
      res.end(JSON.stringify({ error: { type: 'internal', message: 'The gateway failed to handle the request.' } }));
    } else {
      res.destroy();
    }
  } finally {
    if (res.writableFinished || res.destroyed) res.off('close', onClose);
    if (deferred !== undefined) for (const work of deferred) work().catch(options.onError ?? noop);
  }
}

/**
 * An answer given before the request's body was read (a refused key, a rate limit, a body too
 * large): closing the connection after it, rather than reading the rest of the body only to
 * keep the connection alive, so a refused client cannot make the server take in megabytes.
 * A small body has arrived whole by then (`req.complete`) and the connection is kept.
 */
function closeIfUnread(req: IncomingMessage, res: ServerResponse): void {
  if (!req.complete && !res.headersSent) res.setHeader('connection', 'close');
}

/**
 * A `node:http` request listener around a gateway: `createServer(toNodeListener(gateway))`.
 * The body streams into the gateway with backpressure and a cap; the answer streams out
 * honouring `drain`; a client disconnect aborts the upstream call.
 */
export function toNodeListener(gateway: GatewayLike, options: NodeListenerOptions = {}): NodeListener {
  return (req, res) => {
    void handleNodeRequest(gateway, req, res, options).catch(noop);
  };
}
