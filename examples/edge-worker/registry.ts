/**
 * The Worker's registry and policy: the same objects `registry.yaml` / `policy.yaml` parse to.
 * OpenAI and Anthropic, each reachable from OpenAI and Anthropic SDKs. Prices are list prices
 * in USD per million tokens at the time of writing; check them before relying on budgets.
 */
import type { PolicyFileInput, RegistryFileInput } from '@tollgate/adapters-edge/minimal';

export const registry: RegistryFileInput = {
  wire_formats: {
    openai_chat: { family: 'chat' },
    anthropic_messages: { family: 'chat' },
  },
  entry_routes: [
    { path: '/v1/chat/completions', format: 'openai_chat' },
    { path: '/v1/messages', format: 'anthropic_messages' },
  ],
  converters: [
    { from: 'openai_chat', to: 'anthropic_messages' },
    { from: 'anthropic_messages', to: 'openai_chat' },
  ],
  // Names of secrets, never values: the Worker reads them from `env` (wrangler secret put …).
  credentials: {
    openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
  },
  providers: {
    openai: { base_url: 'https://api.openai.com', credential: 'openai' },
    anthropic: { base_url: 'https://api.anthropic.com', credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
  },
  operations: [
    { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
    { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
  ],
  models: {
    'gpt-4o-mini': {
      brand: 'openai',
      entry_formats: ['openai_chat', 'anthropic_messages'],
      tags: ['gpt', 'fast'],
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
    'claude-sonnet': {
      brand: 'anthropic',
      entry_formats: ['openai_chat', 'anthropic_messages'],
      aliases: ['claude-sonnet-latest'],
      tags: ['claude', 'frontier'],
      capabilities: { tools: true, reasoning: true, context_window: 200000, max_output_tokens: 64000 },
      deployments: [
        {
          id: 'sonnet@anthropic',
          provider: 'anthropic',
          format: 'anthropic_messages',
          upstream_model: 'claude-sonnet-4-5',
          pricing: { unit: 'usd_per_mtok', input: '3', output: '15', cache_read: '0.30', cache_write: '3.75', cache_write_1h: '6' },
        },
      ],
    },
  },
};

/**
 * Rate limits and spend notifications only. State lives per isolate here (no shared `store`),
 * so these hold per isolate: a caller spread over many isolates gets more. A `block` rule (a
 * hard cap) would be refused at start on this store: see the README.
 */
export const policy: PolicyFileInput = {
  rate_limits: [{ id: 'per-user', match: {}, rpm: 60, tpm: 200000 }],
  spend: {
    rules: [
      {
        id: 'frontier-monthly',
        matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '50' }, actions: [{ type: 'notify', to: ['user'] }] }],
      },
    ],
  },
};
