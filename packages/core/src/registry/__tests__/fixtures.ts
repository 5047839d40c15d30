/** A valid registry exercising every section, for tests to copy and break. */
export function baseRegistry(): Record<string, any> {
  return structuredClone(BASE);
}

const pricing = (input: string, output: string) => ({ unit: 'usd_per_mtok', input, output });

const BASE = {
  wire_formats: {
    openai_chat: { family: 'chat' },
    openai_responses: { family: 'responses' },
    anthropic_messages: { family: 'chat' },
    anthropic_vertex: { family: 'chat' },
    gemini_generate_content: { family: 'chat' },
  },
  entry_routes: [
    { path: '/v1/chat/completions', format: 'openai_chat' },
    { path: '/v1/responses', format: 'openai_responses' },
    { path: '/v1/messages', format: 'anthropic_messages' },
    { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
    { path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true },
  ],
  converters: [
    { from: 'openai_chat', to: 'anthropic_messages' },
    { from: 'anthropic_messages', to: 'anthropic_vertex' },
    { from: 'openai_chat', to: 'anthropic_vertex' },
    { from: 'openai_responses', to: 'anthropic_messages' },
  ],
  credentials: {
    anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
    openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    google: { kind: 'query', param: 'key', secret: 'GEMINI_API_KEY' },
    vertex: { kind: 'bearer', secret: 'VERTEX_ACCESS_TOKEN' },
  },
  providers: {
    anthropic: { base_url: 'https://api.anthropic.com', credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
    openai: { base_url: 'https://api.openai.com/', credential: 'openai' },
    google: { base_url: 'https://generativelanguage.googleapis.com', credential: 'google' },
    vertex: {
      base_url: 'https://us-east5-aiplatform.googleapis.com/v1/projects/acme/locations/us-east5/publishers/anthropic/models',
      credential: 'vertex',
    },
    local: { base_url: 'http://127.0.0.1:8000' },
  },
  operations: [
    { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
    { provider: 'vertex', format: 'anthropic_vertex', family: 'chat', path: '/{model}:rawPredict', stream_path: '/{model}:streamRawPredict' },
    { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
    { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses' },
    {
      provider: 'google',
      format: 'gemini_generate_content',
      family: 'chat',
      path: '/v1beta/models/{model}:generateContent',
      stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
    },
    { provider: 'local', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
  ],
  models: {
    'claude-sonnet': {
      brand: 'anthropic',
      entry_formats: ['openai_chat', 'anthropic_messages', 'openai_responses'],
      aliases: ['claude-sonnet-latest'],
      tags: ['claude', 'sonnet', 'frontier'],
      visibility: 'listed',
      capabilities: { tools: true, reasoning: true, context_window: 200000, max_output_tokens: 64000 },
      deployments: [
        {
          id: 'sonnet@vertex',
          provider: 'vertex',
          format: 'anthropic_vertex',
          upstream_model: 'claude-sonnet-4-5@20250929',
          region: 'us',
          priority: 1,
          weight: 300,
          pricing: pricing('3', '15'),
        },
        {
          id: 'sonnet@anthropic',
          provider: 'anthropic',
          format: 'anthropic_messages',
          upstream_model: 'claude-sonnet-4-5',
          region: 'us',
          priority: 1,
          weight: 100,
          pricing: {
            unit: 'usd_per_mtok',
            input: '3',
            output: '15',
            cache_read: '0.30',
            cache_write: '3.75',
            cache_write_1h: '6',
            threshold_tokens: 200000,
            long: { input: '6', output: '22.50', cache_read: '0.60', cache_write: '7.50', cache_write_1h: '12' },
          },
        },
        {
          id: 'sonnet@anthropic-eu',
          provider: 'anthropic',
          format: 'anthropic_messages',
          upstream_model: 'claude-sonnet-4-5',
          region: 'eu',
          priority: 2,
          weight: 100,
          pricing: pricing('3.3', '16.5'),
        },
        { id: 'sonnet@old', provider: 'anthropic', format: 'anthropic_messages', upstream_model: 'claude-3-7-sonnet', enabled: false },
      ],
    },
    'gpt-5': {
      brand: 'openai',
      entry_formats: ['openai_chat', 'openai_responses'],
      tags: ['gpt', 'frontier'],
      capabilities: { context_window: 400000, max_output_tokens: 128000 },
      deployments: [
        {
          id: 'gpt-5@chat',
          provider: 'openai',
          format: 'openai_chat',
          upstream_model: 'gpt-5',
          pricing: { unit: 'usd_per_mtok', input: 1.25, output: 10, cache_read: 0.125 },
        },
        { id: 'gpt-5@responses', provider: 'openai', format: 'openai_responses', upstream_model: 'gpt-5', pricing: pricing('1.25', '10') },
      ],
    },
    'gemini-flash': {
      brand: 'google',
      entry_formats: ['gemini_generate_content'],
      aliases: ['gemini-2.5-flash'],
      capabilities: { context_window: 1048576, max_output_tokens: 65536 },
      deployments: [
        { id: 'flash@google', provider: 'google', format: 'gemini_generate_content', upstream_model: 'gemini-2.5-flash', pricing: pricing('0.30', '2.50') },
      ],
    },
    'llama-local': {
      brand: 'meta',
      entry_formats: ['openai_chat'],
      visibility: 'hidden',
      deployments: [{ id: 'llama@local', provider: 'local', format: 'openai_chat', upstream_model: 'meta-llama/Llama 3.3', pricing: pricing('0', '0') }],
    },
    'claude-next': {
      brand: 'anthropic',
      entry_formats: ['anthropic_messages'],
      deployments: [{ id: 'next@anthropic', provider: 'anthropic', format: 'anthropic_messages', upstream_model: 'claude-next', enabled: false }],
    },
  },
};
