/**
 * Fastify 5 plugin: `app.register(fastifyPlugin, { gateway })`, optionally with a `prefix`.
 * It registers a catch-all route in its own encapsulated context, where every content type
 * is left unparsed so the raw body streams into the gateway; the reply is hijacked and
 * written by the Node adapter (backpressure, cancellation, body cap).
 */
import type { FastifyPluginAsync } from 'fastify';
import { handleNodeRequest, type GatewayLike, type NodeListenerOptions } from './http/listener.js';

export interface FastifyPluginOptions extends NodeListenerOptions {
  gateway: GatewayLike;
}

export const fastifyPlugin: FastifyPluginAsync<FastifyPluginOptions> = async (app, options) => {
  const { gateway, ...listenerOptions } = options;
  if (gateway === undefined || typeof gateway.handle !== 'function') throw new TypeError('fastifyPlugin needs { gateway }');
  // Scoped to this plugin: keep the body as the raw stream, whatever its content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const prefix = app.prefix;
  app.all('/*', (request, reply) => {
    reply.hijack();
    const raw = request.raw.url ?? '/';
    const url = prefix !== '' && raw.startsWith(prefix) ? raw.slice(prefix.length) || '/' : raw;
    return handleNodeRequest(gateway, request.raw, reply.raw, { ...listenerOptions, url });
  });
};
