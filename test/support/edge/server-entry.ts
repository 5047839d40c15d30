/**
 * A tollgate edge server for Bun and Deno, bundled by the runtime tests (esbuild, platform
 * neutral) and run as a child process:
 *   bun run server.mjs        deno run --allow-net=127.0.0.1 --allow-env server.mjs
 * Configuration comes from the environment: TOLLGATE_EDGE_CONFIG (JSON: registry, identity,
 * policy?, allowPerIsolateCaps?, codecs?) and the provider secrets by name, read by the handler's
 * default (the process environment, or Deno.env). Prints `LISTENING <port>` once serving,
 * `RUNTIME <name> <version>`, and `USAGE <json>` for every usage record. With `codecs` (wire
 * format names) the handler comes from `@tollgate/adapters-edge/minimal` with those codecs only.
 */
import { createEdgeHandler, type EdgeHandlerOptions } from '@tollgate/adapters-edge';
import { createEdgeHandler as createMinimalEdgeHandler, type Codec } from '@tollgate/adapters-edge/minimal';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';

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

type Config = Pick<EdgeHandlerOptions, 'registry' | 'identity' | 'policy' | 'allowPerIsolateCaps'> & { codecs?: Array<'openai_chat' | 'anthropic_messages'> };
const { codecs, ...config } = JSON.parse(env('TOLLGATE_EDGE_CONFIG') ?? '{}') as Config;
const options: EdgeHandlerOptions = {
  ...config,
  usage: (record) => console.log(`USAGE ${JSON.stringify(record)}`),
  notify: (notification) => console.log(`NOTIFY ${JSON.stringify(notification)}`),
};
const byFormat: Record<'openai_chat' | 'anthropic_messages', Codec> = { openai_chat: openaiChatCodec, anthropic_messages: anthropicMessagesCodec };
const handler = codecs === undefined ? createEdgeHandler(options) : createMinimalEdgeHandler({ ...options, codecs: codecs.map((f) => byFormat[f]) });

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
