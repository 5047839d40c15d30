/**
 * A tollgate edge server for Bun and Deno, bundled by the runtime tests (esbuild, platform
 * neutral) and run as a child process:
 *   bun run server.mjs        deno run --allow-net=127.0.0.1 --allow-env server.mjs
 * Configuration comes from the environment: TOLLGATE_EDGE_CONFIG (JSON: registry, identity,
 * policy?, allowPerIsolateCaps?) and the provider secrets by name, read by the handler's
 * default (the process environment, or Deno.env). Prints `LISTENING <port>` once serving,
 * `RUNTIME <name> <version>`, and `USAGE <json>` for every usage record.
 */
import { createEdgeHandler, type EdgeHandlerOptions } from '@tollgate/adapters-edge';

interface DenoLike {
  version: { deno: string };
  env: { get(name: string): string | undefined };
  serve(options: { hostname: string; port: number; onListen(addr: { port: number }): void }, handler: (request: Request) => Promise<Response>): unknown;
}
interface BunLike {
  version: string;
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch(request: Request, server: unknown): Promise<Response> }): { port: number };
}

const g = globalThis as { Deno?: DenoLike; Bun?: BunLike };
const env = (name: string): string | undefined => (g.Deno !== undefined ? g.Deno.env.get(name) : g.Bun?.env[name]);

const config = JSON.parse(env('TOLLGATE_EDGE_CONFIG') ?? '{}') as Pick<EdgeHandlerOptions, 'registry' | 'identity' | 'policy' | 'allowPerIsolateCaps'>;
const handler = createEdgeHandler({
  ...config,
  usage: (record) => console.log(`USAGE ${JSON.stringify(record)}`),
});

if (g.Deno !== undefined) {
  console.log(`RUNTIME deno ${g.Deno.version.deno}`);
  g.Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`LISTENING ${port}`) }, handler);
} else if (g.Bun !== undefined) {
  console.log(`RUNTIME bun ${g.Bun.version}`);
  const server = g.Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler });
  console.log(`LISTENING ${server.port}`);
} else {
  throw new Error('server-entry runs under Bun or Deno');
}
