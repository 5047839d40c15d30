/**
 * tollgate as a Cloudflare Worker (module syntax). Point an SDK at the Worker's URL with a
 * tollgate virtual key:  new OpenAI({ baseURL: 'https://<worker>/v1', apiKey: 'tg_…' }).
 *
 * Workers hand secrets over only with each request (`env`), so `createWorker` builds the
 * gateway on the first request and reuses it for the isolate's life. Provider secrets are read
 * from `env` by the names the registry gives (OPENAI_API_KEY, ANTHROPIC_API_KEY); each usage
 * record is logged as one JSON line (Workers Logs / Logpush) and kept alive with
 * `ctx.waitUntil`.
 *
 * The Worker serves two wire formats, so it lists their two codecs: `createWorker` from
 * `@tollgate/adapters-edge/minimal` bundles only the codecs it is given (the one from
 * `@tollgate/adapters-edge` bundles all five). A registry route or deployment in a format not
 * listed here is refused at start, naming the codec to add.
 */
import { createWorker, type WorkerContext } from '@tollgate/adapters-edge/minimal';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { policy, registry } from './registry.js';

/** The Worker's bindings: secrets (`wrangler secret put NAME`) and variables. Declared here, so no @cloudflare/workers-types is needed. */
export interface Env {
  OPENAI_API_KEY: string;
  ANTHROPIC_API_KEY: string;
  /**
   * Virtual keys as JSON: `[{ "hash": "sha256:…", "principal": { "user": "alice", "tier": "normal" } }]`.
   * `tollgate key create --user alice` prints a key once, with its hash.
   */
  TOLLGATE_VIRTUAL_KEYS: string;
}

const worker = createWorker<Env>((env) => ({
  registry,
  policy,
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the gateway validates the keys when it starts
  identity: { virtual_keys: JSON.parse(env.TOLLGATE_VIRTUAL_KEYS) },
  usage: (record) => console.log(JSON.stringify(record)),
  // The policy's notify action: one line per crossing per window (per isolate on this store).
  notify: (notification, principal) => console.log(JSON.stringify({ tollgate_notification: notification, principal: principal.id })),
  codecs: [openaiChatCodec, anthropicMessagesCodec],
}));

export default {
  fetch: (request: Request, env: Env, ctx: WorkerContext) => worker.fetch(request, env, ctx),
};
