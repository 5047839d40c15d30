import type { RegistryFileInput } from '../../registry/index.js';

/** Shared by the gateway tests here: a registry with one Anthropic deployment and an in-memory Anthropic upstream. */
export const ANTHROPIC_SECRET = 'sk-ant-upstream-0001';
const PRICING = { unit: 'usd_per_mtok', input: '3', output: '15' } as const;

/** OpenAI Chat and Anthropic Messages clients, one Anthropic upstream; optionally a Gemini route and deployment too. */
export function registry(extra: { geminiRoute?: boolean; geminiDeployment?: boolean } = {}) {
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      anthropic_messages: { family: 'chat' },
      // Declared (with a Google operation) but unused unless asked: needs no codec.
      gemini_generate_content: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
      ...(extra.geminiRoute ? [{ path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' }] : []),
    ],
    converters: [
      { from: 'openai_chat', to: 'anthropic_messages' },
      ...(extra.geminiRoute ? [{ from: 'gemini_generate_content', to: 'anthropic_messages' }] : []),
      ...(extra.geminiDeployment ? [{ from: 'openai_chat', to: 'gemini_generate_content' }] : []),
    ],
    credentials: {
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
      google: { kind: 'query', param: 'key', secret: 'GEMINI_API_KEY' },
    },
    providers: {
      anthropic: { base_url: 'https://anthropic.test', credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      google: { base_url: 'https://google.test', credential: 'google' },
    },
    operations: [
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
      'claude-sonnet': {
        brand: 'anthropic',
        entry_formats: ['openai_chat', 'anthropic_messages', ...(extra.geminiRoute ? ['gemini_generate_content'] : [])],
        capabilities: { max_output_tokens: 1000 },
        deployments: [{ id: 'sonnet@anthropic', provider: 'anthropic', format: 'anthropic_messages', upstream_model: 'claude-sonnet-4-5', pricing: PRICING }],
      },
      ...(extra.geminiDeployment
        ? {
            'gemini-flash': {
              brand: 'google',
              entry_formats: ['openai_chat'],
              capabilities: { max_output_tokens: 1000 },
              deployments: [
                { id: 'flash@google', provider: 'google', format: 'gemini_generate_content', upstream_model: 'gemini-2.5-flash', pricing: PRICING },
              ],
            },
          }
        : {}),
    },
  } satisfies RegistryFileInput;
}

const encoder = new TextEncoder();
const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** An Anthropic Messages upstream answering "Hello from Claude", streamed or whole. */
export function anthropicUpstream() {
  const seen: Array<{ url: string; headers: Headers; body: Record<string, unknown> }> = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as Record<string, unknown>;
    seen.push({ url: request.url, headers: request.headers, body });
    if (body.stream === true) {
      const events = [
        sse('message_start', {
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [],
            stop_reason: null,
            usage: { input_tokens: 12, output_tokens: 1 },
          },
        }),
        sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello from' } }),
        sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' Claude' } }),
        sse('content_block_stop', { index: 0 }),
        sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }),
        sse('message_stop', {}),
      ];
      return new Response(new ReadableStream({ start: (c) => (events.forEach((e) => c.enqueue(encoder.encode(e))), c.close()) }), {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      });
    }
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Hello from Claude' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: 4 },
    };
    return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchImpl, seen };
}
