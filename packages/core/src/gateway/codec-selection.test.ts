import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { geminiCodec } from '@tollgate/codecs/gemini';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { createGateway as createMinimalGateway, type Codec, type Gateway } from '@tollgate/core/minimal';
import { createGateway, GatewayConfigError, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';

const ANTHROPIC_SECRET = 'sk-ant-upstream-0001';
const PRICING = { unit: 'usd_per_mtok', input: '3', output: '15' };

/** OpenAI Chat and Anthropic Messages clients, one Anthropic upstream; optionally a Gemini route and deployment too. */
function registry(extra: { geminiRoute?: boolean; geminiDeployment?: boolean } = {}) {
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
      { provider: 'google', format: 'gemini_generate_content', family: 'chat', path: '/v1beta/models/{model}:generateContent' },
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
              deployments: [{ id: 'flash@google', provider: 'google', format: 'gemini_generate_content', upstream_model: 'gemini-2.5-flash', pricing: PRICING }],
            },
          }
        : {}),
    },
  };
}

const encoder = new TextEncoder();
const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** An Anthropic Messages upstream answering "Hello from Claude", streamed or whole. */
function anthropicUpstream() {
  const seen: Array<{ url: string; headers: Headers; body: Record<string, unknown> }> = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as Record<string, unknown>;
    seen.push({ url: request.url, headers: request.headers, body });
    if (body.stream === true) {
      const events = [
        sse('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } }),
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

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

async function twoFormatGateway() {
  const { key, hash } = await createVirtualKey();
  const upstream = anthropicUpstream();
  const records: UsageRecord[] = [];
  const gateway = createMinimalGateway({
    registry: registry(),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
    secrets: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET },
    fetch: upstream.fetch,
    usage: (r) => void records.push(r),
    codecs: [openaiChatCodec, anthropicMessagesCodec],
  });
  open.push(gateway);
  return { gateway, key, upstream, records };
}

const chat = (key: string, body: Record<string, unknown>) =>
  new Request('https://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });

describe('createGateway from @tollgate/core/minimal: only the codecs it is given', () => {
  it('with OpenAI Chat and Anthropic Messages, translates an OpenAI client to an Anthropic upstream and back', async () => {
    const { gateway, key, upstream, records } = await twoFormatGateway();
    const response = await gateway.handle(chat(key, {}));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; model: string; choices: Array<{ message: { content: string }; finish_reason: string }> };
    expect(body).toMatchObject({ object: 'chat.completion', model: 'claude-sonnet', choices: [{ message: { content: 'Hello from Claude' }, finish_reason: 'stop' }] });
    expect(upstream.seen[0]!.url).toBe('https://anthropic.test/v1/messages');
    expect(upstream.seen[0]!.headers.get('x-api-key')).toBe(ANTHROPIC_SECRET);
    expect(upstream.seen[0]!.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [{ role: 'user' }] });
    expect(records.at(-1)).toMatchObject({ status: 'ok', entry_format: 'openai_chat', upstream_format: 'anthropic_messages', usage: { input: 12, output: 4 } });
  });

  it('streams the translation chunk by chunk, usage included', async () => {
    const { gateway, key } = await twoFormatGateway();
    const response = await gateway.handle(chat(key, { stream: true, stream_options: { include_usage: true } }));
    expect(response.status).toBe(200);
    let text = '';
    let usage: unknown = null;
    for (const line of (await response.text()).split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }>; usage?: unknown };
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from Claude');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4 });
  });

  it('renders its refusals in the caller format among its codecs', async () => {
    const { gateway } = await twoFormatGateway();
    const anthropicClient = await gateway.handle(
      new Request('https://gateway.test/v1/messages', { method: 'POST', headers: { 'x-api-key': 'tg_wrongwrongwrongwrongwrongwrongwrong' }, body: '{}' }),
    );
    expect(anthropicClient.status).toBe(401);
    expect(await anthropicClient.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    // A Gemini path on a gateway without the Gemini codec: a 404 in the OpenAI shape.
    const gemini = await gateway.handle(new Request('https://gateway.test/v1beta/models/x:generateContent', { method: 'POST', body: '{}' }));
    expect(gemini.status).toBe(404);
    expect(await gemini.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('refuses to start when a deployment needs a codec it was not given, naming the format and the deployment', async () => {
    const { hash } = await createVirtualKey();
    const start = () =>
      createMinimalGateway({ registry: registry({ geminiDeployment: true }), identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] }, codecs: [openaiChatCodec, anthropicMessagesCodec] });
    expect(start).toThrow(GatewayConfigError);
    expect(start).toThrow(/no codec for gemini_generate_content, needed by deployment flash@google: add geminiCodec from '@tollgate\/codecs\/gemini'/);
  });

  it('refuses to start when an entry route speaks a format it has no codec for, listing every missing format', async () => {
    const { hash } = await createVirtualKey();
    let error: unknown;
    try {
      createMinimalGateway({ registry: registry({ geminiRoute: true }), identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] }, codecs: [anthropicMessagesCodec] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    const issues = (error as GatewayConfigError).errors.map((e) => e.message);
    expect(issues).toHaveLength(2);
    expect(issues[0]).toMatch(/^no codec for openai_chat, needed by entry route \/v1\/chat\/completions: add openaiChatCodec/);
    expect(issues[1]).toMatch(/^no codec for gemini_generate_content, needed by entry route \/v1beta\/models\/\{model\}:generateContent: add geminiCodec/);
  });

  it('refuses an empty or malformed codec list', async () => {
    const { hash } = await createVirtualKey();
    const options = { registry: registry(), identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] } };
    expect(() => createMinimalGateway({ ...options, codecs: [] })).toThrow(/codecs: a non-empty list of codecs/);
    expect(() => createMinimalGateway({ ...options, codecs: [openaiChatCodec, {} as Codec] })).toThrow(/codecs\[1\]: not a codec/);
    // Without the list at all (a JavaScript caller): refused, not a gateway with no formats.
    expect(() => createMinimalGateway(options as Parameters<typeof createMinimalGateway>[0])).toThrow(GatewayConfigError);
  });
});

describe('createGateway from @tollgate/core', () => {
  it('speaks every format without a codec list, and narrows to one when given', async () => {
    const { hash } = await createVirtualKey();
    const options = { registry: registry({ geminiRoute: true, geminiDeployment: true }), identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] } };
    const all = createGateway(options);
    open.push(all);
    expect(() => createGateway({ ...options, codecs: [openaiChatCodec, anthropicMessagesCodec] })).toThrow(/no codec for gemini_generate_content/);
    const listed = createGateway({ ...options, codecs: [openaiChatCodec, anthropicMessagesCodec, geminiCodec] });
    open.push(listed);
  });
});
