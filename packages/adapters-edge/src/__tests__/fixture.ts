import { createVirtualKey, type PolicyFileInput, type RegistryFileInput } from '@tollgate/core';

export const UPSTREAM = 'https://upstream.test';
export const OPENAI_SECRET = 'sk-upstream-openai-0001';

/** A one-model registry: `gpt-mini` served by an OpenAI Chat upstream at `base`. */
export function edgeRegistry(base = UPSTREAM) {
  return {
    wire_formats: { openai_chat: { family: 'chat' } },
    entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
    converters: [],
    credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
    providers: { openai: { base_url: base, credential: 'openai' } },
    operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
    models: {
      'gpt-mini': {
        brand: 'openai',
        entry_formats: ['openai_chat'],
        tags: ['openai'],
        capabilities: { max_output_tokens: 1000 },
        deployments: [
          {
            id: 'mini@openai',
            provider: 'openai',
            format: 'openai_chat',
            upstream_model: 'gpt-4o-mini',
            priority: 1,
            weight: 100,
            pricing: { unit: 'usd_per_mtok', input: '0.15', output: '0.60' },
          },
        ],
      },
    },
  } satisfies RegistryFileInput;
}

/** A policy whose `mini-cap` rule blocks at $5 a month (a hard cap) and notifies at $4. */
export function cappedPolicy(extra: { enforcement?: 'enforce' | 'shadow'; ruleEnforcement?: 'enforce' | 'shadow' } = {}) {
  return {
    ...(extra.enforcement === undefined ? {} : { enforcement: extra.enforcement }),
    spend: {
      rules: [
        {
          id: 'mini-notify',
          matches: [{ match: { scope: 'openai', window: 'monthly', at_or_above_usd: '4' }, actions: [{ type: 'notify', to: ['user'] }] }],
        },
        {
          id: 'mini-cap',
          ...(extra.ruleEnforcement === undefined ? {} : { enforcement: extra.ruleEnforcement }),
          matches: [{ match: { scope: 'openai', window: 'monthly', at_or_above_usd: '5' }, actions: [{ type: 'block' }] }],
        },
      ],
    },
  } satisfies PolicyFileInput;
}

export async function aliceIdentity() {
  const { key, hash } = await createVirtualKey();
  return { key, identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] } };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-edge', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** An OpenAI Chat stream answering "Hello from the edge", with a usage chunk. */
export const STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hello' }),
  chunk({ content: ' from the' }),
  chunk({ content: ' edge' }),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-edge', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })}\n\n`,
  'data: [DONE]\n\n',
];

export const COMPLETION = {
  id: 'chatcmpl-edge',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the edge' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
};

export interface FakeUpstream {
  fetch: typeof fetch;
  /** Requests the upstream saw: URL, headers and parsed body. */
  seen: Array<{ url: string; headers: Headers; body: Record<string, unknown> }>;
}

/** An in-memory OpenAI upstream: a stream when the body asks for one, else a JSON completion. */
export function fakeUpstream(): FakeUpstream {
  const seen: FakeUpstream['seen'] = [];
  const encoder = new TextEncoder();
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as Record<string, unknown>;
    seen.push({ url: request.url, headers: request.headers, body });
    if (body.stream === true) {
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i < STREAM.length) controller.enqueue(encoder.encode(STREAM[i++]));
          else controller.close();
        },
      });
      return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    return new Response(JSON.stringify(COMPLETION), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchImpl, seen };
}

export function chatRequest(key: string, body: Record<string, unknown> = {}, path = '/v1/chat/completions'): Request {
  return new Request(`https://gateway.test${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

/** The text of an OpenAI Chat SSE body, concatenated from its content deltas. */
export async function streamedText(response: Response): Promise<{ text: string; usage: unknown }> {
  const raw = await response.text();
  let text = '';
  let usage: unknown = null;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const event = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }>; usage?: unknown };
    text += event.choices?.[0]?.delta?.content ?? '';
    if (event.usage) usage = event.usage;
  }
  return { text, usage };
}
