/**
 * The gateway behind the route handler, made once per server instance (module scope is fine:
 * the per-isolate store is made on the first request). Mounted at /api/tollgate, so clients use
 * `baseURL: 'https://<app>/api/tollgate/v1'` and `basePath` strips the prefix before routing.
 *
 * Secrets: provider secrets are read from the environment by the names the registry gives
 * (OPENAI_API_KEY), the handler's default where `process.env` exists, as on Vercel and Next.js.
 */
import { createEdgeHandler, type RegistryFileInput } from '@tollgate/adapters-edge';

export const registry: RegistryFileInput = {
  wire_formats: { openai_chat: { family: 'chat' } },
  entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
  converters: [],
  credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
  providers: { openai: { base_url: 'https://api.openai.com', credential: 'openai' } },
  operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
  models: {
    'gpt-4o-mini': {
      brand: 'openai',
      entry_formats: ['openai_chat'],
      tags: ['gpt'],
      capabilities: { tools: true, context_window: 128000, max_output_tokens: 16384 },
      deployments: [
        {
          id: 'gpt-4o-mini@openai',
          provider: 'openai',
          format: 'openai_chat',
          upstream_model: 'gpt-4o-mini',
          pricing: { unit: 'usd_per_mtok', input: '0.15', output: '0.60', cache_read: '0.075' },
        },
      ],
    },
  },
};

export const handler = createEdgeHandler({
  registry,
  // Virtual keys (hashes only), e.g. [{"hash":"sha256:…","principal":{"user":"alice"}}]. A function
  // `(keyHash) => principal | null` can look them up in a database instead.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the gateway validates the keys when it starts
  identity: { virtual_keys: JSON.parse(process.env.TOLLGATE_VIRTUAL_KEYS ?? '[]') },
  policy: { rate_limits: [{ id: 'per-user', match: {}, rpm: 60 }] },
  usage: (record) => console.log(JSON.stringify(record)),
  basePath: '/api/tollgate',
});
