/**
 * The quickstart's registry and policy: the same objects `registry.yaml` / `policy.yaml`
 * parse to (see examples/service for the files). Providers point at the scripted mock.
 */
import type { PolicyFileInput, RegistryFileInput } from '@tollgate/core';

export const MOCK_BASE = 'http://mock-provider.invalid';

const price = (input: string, output: string, cacheRead?: string) =>
  ({ unit: 'usd_per_mtok', input, output, ...(cacheRead === undefined ? {} : { cache_read: cacheRead }) }) as const;

export const registry = {
  wire_formats: {
    openai_chat: { family: 'chat' },
    openai_responses: { family: 'responses' },
    anthropic_messages: { family: 'chat' },
    gemini_generate_content: { family: 'chat' },
  },
  entry_routes: [
    { path: '/v1/chat/completions', format: 'openai_chat' },
    { path: '/v1/responses', format: 'openai_responses' },
    { path: '/v1/messages', format: 'anthropic_messages' },
    { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
    { path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true },
  ],
  // Every SDK may reach every model: these are the translations allowed.
  converters: [
    { from: 'openai_chat', to: 'anthropic_messages' },
    { from: 'openai_chat', to: 'gemini_generate_content' },
    { from: 'anthropic_messages', to: 'openai_chat' },
    { from: 'openai_responses', to: 'anthropic_messages' },
    { from: 'gemini_generate_content', to: 'openai_chat' },
  ],
  credentials: {
    openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
    google: { kind: 'header', header: 'x-goog-api-key', secret: 'GEMINI_API_KEY' },
  },
  providers: {
    openai: { base_url: `${MOCK_BASE}/openai`, credential: 'openai' },
    anthropic: { base_url: `${MOCK_BASE}/anthropic`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
    google: { base_url: `${MOCK_BASE}/google`, credential: 'google' },
  },
  operations: [
    { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
    { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses' },
    { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
    {
      provider: 'google',
      format: 'gemini_generate_content',
      family: 'chat',
      path: '/v1beta/models/{model}:generateContent',
      stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
    },
  ],
  models: {
    'gpt-4o-mini': {
      brand: 'openai',
      entry_formats: ['openai_chat', 'openai_responses', 'anthropic_messages', 'gemini_generate_content'],
      tags: ['gpt', 'fast'],
      capabilities: { tools: true, context_window: 128000, max_output_tokens: 16384 },
      deployments: [
        { id: 'gpt-4o-mini@openai-chat', provider: 'openai', format: 'openai_chat', upstream_model: 'gpt-4o-mini', pricing: price('0.15', '0.60', '0.075') },
        {
          id: 'gpt-4o-mini@openai-responses',
          provider: 'openai',
          format: 'openai_responses',
          upstream_model: 'gpt-4o-mini',
          pricing: price('0.15', '0.60', '0.075'),
        },
      ],
    },
    'claude-sonnet': {
      brand: 'anthropic',
      entry_formats: ['openai_chat', 'openai_responses', 'anthropic_messages'],
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
    'gemini-flash': {
      brand: 'google',
      entry_formats: ['gemini_generate_content', 'openai_chat'],
      tags: ['gemini', 'fast'],
      capabilities: { tools: true, reasoning: true, context_window: 1048576, max_output_tokens: 65536 },
      deployments: [
        {
          id: 'gemini-flash@google',
          provider: 'google',
          format: 'gemini_generate_content',
          upstream_model: 'gemini-2.5-flash',
          pricing: price('0.30', '2.50', '0.03'),
        },
      ],
    },
  },
} satisfies RegistryFileInput;

/** A little governance to see in the usage records: a rate limit and a daily spend cap. */
export const policy = {
  enforcement: 'enforce',
  rate_limits: [{ id: 'demo-rate', match: {}, rpm: 120 }],
  spend: {
    rules: [{ id: 'demo-daily', weight: 10, matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '5' }, actions: [{ type: 'block' }] }] }],
  },
} satisfies PolicyFileInput;

/** The mock ignores these, but the gateway brokers a credential on every upstream call. */
export const mockSecrets = { OPENAI_API_KEY: 'mock-openai-key', ANTHROPIC_API_KEY: 'mock-anthropic-key', GEMINI_API_KEY: 'mock-gemini-key' };
