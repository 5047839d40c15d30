import type { EdgeHandler, EdgeHandlerOptions, MinimalEdgeHandlerOptions } from './handler.js';
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

/** `WorkerConfigure` for `createWorker` of `@tollgate/adapters-edge/minimal`: the options list their codecs. */
export type MinimalWorkerConfigure<Env> = (env: Env) => MinimalEdgeHandlerOptions | Promise<MinimalEdgeHandlerOptions>;

/** `createWorker` (see `create.ts` and `minimal.ts`): handlers made by `createHandler` from `configure(env)`. */
export function buildWorker<Env, Options extends EdgeHandlerOptions>(
  configure: (env: Env) => Options | Promise<Options>,
  createHandler: (options: Options) => EdgeHandler,
): EdgeWorker<Env> {
  let handler: Promise<EdgeHandler> | undefined;
  const build = async (env: Env): Promise<EdgeHandler> => {
    const options = await configure(env);
    return createHandler(options.secrets === undefined ? { ...options, secrets: envSecrets(env as object) } : options);
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
