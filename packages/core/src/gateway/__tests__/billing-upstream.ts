/**
 * For the hard-cap tests: a registry with an identity route per format (OpenAI Chat, OpenAI
 * Responses, Gemini, Anthropic Messages) and an in-memory upstream for all of them that bills
 * as a real one would — every output token the request allows, once per choice — and keeps the
 * running total it billed, so a test can compare what was recorded with what was billed.
 */

import type { WireFormat } from '@tollgate/codecs/base';
import type { RegistryFileInput } from '../../registry/index.js';

/** $1 per Mtok in, $10 per Mtok out: 1 and 10 micro-USD per token. */
export const PRICING = { unit: 'usd_per_mtok', input: '1', output: '10' } as const;

export function billingRegistry(options: { contextWindow?: number; maxOutputTokens?: number } = {}): RegistryFileInput {
  const capabilities = {
    max_output_tokens: options.maxOutputTokens ?? 4000,
    ...(options.contextWindow === undefined ? {} : { context_window: options.contextWindow }),
  };
  const model = (brand: string, format: WireFormat, provider: string, upstream: string) => ({
    brand,
    entry_formats: [format],
    capabilities,
    deployments: [{ id: `${upstream}@${provider}`, provider, format, upstream_model: upstream, pricing: PRICING }],
  });
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      openai_responses: { family: 'responses' },
      gemini_generate_content: { family: 'chat' },
      anthropic_messages: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/responses', format: 'openai_responses' },
      { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
      { path: '/v1/messages', format: 'anthropic_messages' },
    ],
    converters: [],
    credentials: { key: { kind: 'bearer', secret: 'UPSTREAM_KEY' } },
    providers: {
      openai: { base_url: 'https://openai.test', credential: 'key' },
      google: { base_url: 'https://google.test', credential: 'key' },
      anthropic: { base_url: 'https://anthropic.test', credential: 'key', headers: { 'anthropic-version': '2023-06-01' } },
    },
    operations: [
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
      { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses' },
      {
        provider: 'google',
        format: 'gemini_generate_content',
        family: 'chat',
        path: '/v1beta/models/{model}:generateContent',
        stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
      },
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
    ],
    models: {
      'gpt-chat': model('openai', 'openai_chat', 'openai', 'gpt-upstream'),
      'gpt-resp': model('openai', 'openai_responses', 'openai', 'gpt-resp-upstream'),
      'gemini-x': model('google', 'gemini_generate_content', 'google', 'gemini-upstream'),
      'claude-x': model('anthropic', 'anthropic_messages', 'anthropic', 'claude-upstream'),
    },
  };
}

const PROMPT_TOKENS = 10;

/**
 * The upstream: answers each format with the output the request allows, fully used (the worst
 * case a hard cap must cover), once per choice; `billedMicros` is what it charged in total.
 * `gate` (when set) makes calls wait until released: a slow upstream.
 */
export function billingUpstream() {
  const state = {
    billedMicros: 0,
    calls: 0,
    bodies: [] as Array<Record<string, unknown>>,
    gate: null as Promise<void> | null,
    /** Output tokens each choice uses; null: all the request allows. */
    outputTokens: null as number | null,
    /** The next call fails with a 500 (and bills nothing). */
    failNext: false,
  };
  const used = (allowed: number) => (state.outputTokens === null ? allowed : Math.min(allowed, state.outputTokens));
  const bill = (input: number, output: number) => (state.billedMicros += input * 1 + output * 10);
  const json = (value: unknown) => new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as Record<string, unknown>;
    state.calls++;
    state.bodies.push(body);
    if (state.gate !== null) await state.gate;
    if (state.failNext) {
      state.failNext = false;
      return new Response(JSON.stringify({ error: { message: 'boom', type: 'server_error', code: null } }), {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    }
    const url = new URL(request.url);
    if (url.pathname === '/v1/chat/completions') {
      const n = typeof body.n === 'number' ? body.n : 1;
      const per = used(Number(body.max_completion_tokens ?? body.max_tokens ?? 16));
      bill(PROMPT_TOKENS, n * per);
      if (body.stream === true) {
        const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
        const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream' };
        const text =
          Array.from({ length: n }, (_, index) =>
            chunk({ ...base, choices: [{ index, delta: { role: 'assistant', content: `choice ${index}` }, finish_reason: null }] }),
          ).join('') +
          Array.from({ length: n }, (_, index) => chunk({ ...base, choices: [{ index, delta: {}, finish_reason: 'length' }] })).join('') +
          chunk({ ...base, choices: [], usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: n * per, total_tokens: PROMPT_TOKENS + n * per } }) +
          'data: [DONE]\n\n';
        return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      const choices = Array.from({ length: n }, (_, index) => ({ index, finish_reason: 'length', message: { role: 'assistant', content: `choice ${index}` } }));
      return json({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-upstream',
        choices,
        usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: n * per, total_tokens: PROMPT_TOKENS + n * per },
      });
    }
    if (url.pathname === '/v1/responses') {
      const per = used(Number(body.max_output_tokens ?? 16));
      bill(PROMPT_TOKENS, per);
      return json({
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: 'gpt-resp-upstream',
        output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
        usage: { input_tokens: PROMPT_TOKENS, output_tokens: per, total_tokens: PROMPT_TOKENS + per },
      });
    }
    if (url.pathname.startsWith('/v1beta/models/')) {
      const config = (body.generationConfig ?? {}) as Record<string, unknown>;
      const n = typeof config.candidateCount === 'number' ? config.candidateCount : 1;
      const per = used(Number(config.maxOutputTokens ?? 16));
      bill(PROMPT_TOKENS, n * per);
      const candidates = Array.from({ length: n }, (_, index) => ({
        index,
        finishReason: 'MAX_TOKENS',
        content: { role: 'model', parts: [{ text: `candidate ${index}` }] },
      }));
      return json({
        candidates,
        modelVersion: 'gemini-upstream',
        usageMetadata: { promptTokenCount: PROMPT_TOKENS, candidatesTokenCount: n * per, totalTokenCount: PROMPT_TOKENS + n * per },
      });
    }
    const per = used(Number(body.max_tokens ?? 16));
    bill(PROMPT_TOKENS, per);
    return json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-upstream',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'max_tokens',
      usage: { input_tokens: PROMPT_TOKENS, output_tokens: per },
    });
  }) as typeof fetch;
  return { fetch: fetchImpl, state };
}
