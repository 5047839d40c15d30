import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { geminiCodec } from '@tollgate/codecs/gemini';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { createGateway as createMinimalGateway, type Codec, type Gateway } from '@tollgate/core/minimal';
import { createGateway, GatewayConfigError, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';

import { ANTHROPIC_SECRET, anthropicUpstream, registry } from './__tests__/anthropic-upstream.js';

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
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'claude-sonnet',
      choices: [{ message: { content: 'Hello from Claude' }, finish_reason: 'stop' }],
    });
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
      createMinimalGateway({
        registry: registry({ geminiDeployment: true }),
        identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] },
        codecs: [openaiChatCodec, anthropicMessagesCodec],
      });
    expect(start).toThrow(GatewayConfigError);
    expect(start).toThrow(/no codec for gemini_generate_content, needed by deployment flash@google: add geminiCodec from '@tollgate\/codecs\/gemini'/);
  });

  it('refuses to start when an entry route speaks a format it has no codec for, listing every missing format', async () => {
    const { hash } = await createVirtualKey();
    let error: unknown;
    try {
      createMinimalGateway({
        registry: registry({ geminiRoute: true }),
        identity: { virtual_keys: [{ hash, principal: { user: 'a' } }] },
        codecs: [anthropicMessagesCodec],
      });
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
    expect(() => createMinimalGateway(options as unknown as Parameters<typeof createMinimalGateway>[0])).toThrow(GatewayConfigError);
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
