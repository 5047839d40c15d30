/**
 * Express 5 middleware: `app.use(expressMiddleware(gateway))`, or under a mount path
 * (`app.use('/llm', expressMiddleware(gateway))`, the gateway then sees paths without it).
 * Mount it before any body parser: the body must reach the gateway as raw bytes (a body a
 * parser already read as a Buffer or string is used as is; a parsed object is re-serialised).
 */
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import type { Gateway } from '@tollgate/core';
import { handleNodeRequest, type GatewayLike, type NodeListenerOptions } from './http/listener.js';
import { gatewayHandles } from './http/routes.js';

export interface ExpressMiddlewareOptions extends NodeListenerOptions {
  /**
   * `registry` (default): handle only the gateway's entry routes and model discovery, and call
   * `next()` for every other path. `all`: answer every request (unknown paths get the
   * gateway's 404 in the caller's format).
   */
  routes?: 'registry' | 'all';
}

export function expressMiddleware(gateway: GatewayLike & Pick<Gateway, 'registry'>, options: ExpressMiddlewareOptions = {}): RequestHandler {
  const { routes = 'registry', ...listenerOptions } = options;
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    // Inside a mounted router `req.url` is relative to the mount path: that is what the gateway sees.
    const url = req.url;
    if (routes === 'registry' && !gatewayHandles(gateway, req.method, url)) {
      next();
      return;
    }
    const body = alreadyRead(req);
    void handleNodeRequest(gateway, req, res, { ...listenerOptions, url, ...(body === undefined ? {} : { body }) }).catch(next);
  };
}

/** The body an earlier parser consumed, as bytes; undefined when the stream is still unread. */
function alreadyRead(req: ExpressRequest): Uint8Array | undefined {
  if (!req.readableEnded) return undefined;
  const body: unknown = req.body;
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  return new TextEncoder().encode(JSON.stringify(body));
}
