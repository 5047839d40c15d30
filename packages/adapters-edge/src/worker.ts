import { createEdgeHandler, type EdgeHandler, type EdgeHandlerOptions } from './handler.js';
import { envSecrets } from './secrets.js';

/** The part of a Worker's `ExecutionContext` the gateway uses. */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** A Worker module's default export: `export default createWorker((env) => options)`. */
export interface EdgeWorker<Env> {
  fetch(request: Request, env: Env, ctx?: WorkerContext): Promise<Response>;
}

/** Builds the handler's options from a Worker's `env` (secrets, variables, bindings). */
export type WorkerConfigure<Env> = (env: Env) => EdgeHandlerOptions | Promise<EdgeHandlerOptions>;

/**
 * A Cloudflare Worker (module syntax) around the gateway. Workers hand over secrets and
 * bindings only with each request, in `env`, so the gateway is built on the first request from
 * `configure(env)` and reused by every later request of the isolate. Without `secrets` in the
 * options, provider secrets are read from `env` by name. Each request's usage record is kept
 * alive with `ctx.waitUntil`.
 *
 * State lives per isolate unless `store` is given (see `EdgeHandlerOptions`). A configuration
 * the gateway refuses (an invalid registry or policy, hard caps on a per-isolate store) is
 * logged with `console.error` and answered with a 500 in OpenAI's error shape; the next
 * request tries again.
 */
export function createWorker<Env = Record<string, unknown>>(configure: WorkerConfigure<Env>): EdgeWorker<Env> {
  let handler: Promise<EdgeHandler> | undefined;
  const build = async (env: Env): Promise<EdgeHandler> => {
    const options = await configure(env);
    return createEdgeHandler(options.secrets === undefined ? { ...options, secrets: envSecrets(env as object) } : options);
  };
  return {
    async fetch(request, env, ctx) {
      const current = (handler ??= build(env));
      let ready: EdgeHandler;
      try {
        ready = await current;
      } catch (error) {
        if (handler === current) handler = undefined;
        console.error('tollgate: the gateway refused its configuration:', error instanceof Error ? error.message : error);
        return misconfigured();
      }
      return ctx === undefined ? ready(request) : ready(request, ctx);
    },
  };
}

function misconfigured(): Response {
  const body = { error: { message: 'The gateway is not configured correctly.', type: 'server_error', param: null, code: 'gateway_misconfigured' } };
  return new Response(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/json' } });
}
