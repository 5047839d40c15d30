/**
 * An upstream in any wire format that answers with what it was sent — so what left the
 * gateway is what the model "says", and a client sees what the gateway made of it. The
 * request is decoded and the answer encoded by the format's own codec (the same code every
 * other codec test checks against recorded vendor traffic); streams are cut into 1-character
 * deltas and 7-byte network chunks, so every value in the answer is split over every chunk
 * boundary. And a registry in which every client format reaches an echo upstream of every
 * format.
 */
import { codecs, type AssistantContentPart, type StreamEncoder, type StreamEvent, type WireFormat } from '@tollgate/codecs';
import type { RegistryFileInput } from '@tollgate/core';
import { chunkedResponse } from './http-server.js';
import type { Scenario } from './mock-upstream.js';
import { PRICING_SONNET } from './gateway-fixture.js';

export const CLIENT_FORMATS = ['openai_chat', 'openai_responses', 'anthropic_messages', 'gemini_generate_content'] as const;
export type ClientFormat = (typeof CLIENT_FORMATS)[number];
export const UPSTREAM_FORMATS: readonly WireFormat[] = CLIENT_FORMATS;

export interface EchoVariant {
  /** Said after the echo (a value the model "adds"). */
  suffix?: string;
  /** A tool call the model makes after its text; its arguments are `{ "said": <the user's text> }`. */
  tool?: string;
  /** Streams end after the last text delta: no block end, no finish, no terminal event (a cut connection). */
  cut?: boolean;
}

/** What an echo upstream received. */
export interface Seen {
  format: WireFormat;
  variant: string;
  body: Record<string, unknown>;
}

/** The text of the last user turn, as the format's codec reads it. */
function lastUserText(format: WireFormat, body: Record<string, unknown>, model: string | undefined, stream: boolean): string {
  const ir = codecs[format].decodeRequest(body, { ...(model === undefined ? {} : { model }), stream }).request;
  const users = ir.messages.filter((m) => m.role === 'user');
  const last = users[users.length - 1];
  return last === undefined ? '' : last.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** An echo upstream speaking `format` (`/v1beta/models/{model}:…` carries Gemini's model and stream flag). */
export function echoUpstream(format: WireFormat, variant: string, options: EchoVariant, seen: Seen[]): Scenario {
  return (request, body) => {
    seen.push({ format, variant, body });
    const gemini = /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(new URL(request.url).pathname);
    const stream = gemini !== null ? gemini[2] === 'streamGenerateContent' : body.stream === true;
    const said = lastUserText(format, body, gemini?.[1], stream);
    const text = `You said: ${said}${options.suffix ?? ''}`;
    const tool = options.tool === undefined ? undefined : { name: options.tool, arguments: JSON.stringify({ said }) };
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true };
    const finishReason = { unified: tool === undefined ? 'stop' : 'tool_calls', raw: null } as const;
    const codec = codecs[format];
    if (!stream) {
      const content: AssistantContentPart[] = [{ type: 'text', text }];
      if (tool !== undefined) content.push({ type: 'tool_call', id: 'call_1', ...tool });
      const encoded = codec.encodeResponse({ id: 'resp_1', model: 'echo', content, finishReason, usage });
      return Response.json(encoded.body);
    }
    const events: StreamEvent[] = [
      { type: 'message_start', id: 'resp_1', model: 'echo' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      ...[...text].map((ch): StreamEvent => ({ type: 'text_delta', index: 0, text: ch })),
      { type: 'block_stop', index: 0 },
    ];
    if (options.cut === true) return chunkedResponse(sseChunks(codecs[format].createStreamEncoder({ model: 'echo' }), events, false), {}, 0);
    if (tool !== undefined) {
      const args = tool.arguments;
      events.push({ type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_1', name: tool.name } });
      for (let i = 0; i < args.length; i += 3) events.push({ type: 'tool_args_delta', index: 1, delta: args.slice(i, i + 3) });
      events.push({ type: 'block_stop', index: 1 });
    }
    events.push({ type: 'usage', usage }, { type: 'finish', finishReason }, { type: 'message_stop' });
    return chunkedResponse(sseChunks(codec.createStreamEncoder({ model: 'echo' }), events, true), {}, 0);
  };
}

/** Events as the format's SSE text, in 7-byte pieces; `end`: let the encoder close the stream as the format does. */
function sseChunks(encoder: StreamEncoder, events: StreamEvent[], end: boolean): string[] {
  let sse = '';
  const write = (t: string | Uint8Array) => void (sse += typeof t === 'string' ? t : new TextDecoder().decode(t));
  for (const e of events) encoder.encode(e, write);
  if (end) encoder.end(write);
  const chunks: string[] = [];
  for (let i = 0; i < sse.length; i += 7) chunks.push(sse.slice(i, i + 7));
  return chunks;
}

export const ECHO_SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-upstream-secret-0001',
  OPENAI_API_KEY: 'sk-openai-upstream-secret-0002',
  GEMINI_API_KEY: 'gemini-upstream-secret-0003',
};

/** The model that reaches the echo upstream of `format` playing `variant`: `echo.openai_chat`, … */
export const echoModel = (format: WireFormat, variant = 'echo'): string => `${variant}.${format}`;

/**
 * Every client format (OpenAI Chat, Responses, Anthropic, Gemini) reaches an echo upstream of
 * every format in every variant, `${upstream}/<variant>.<format>`: models `<variant>.<format>`,
 * converters between every pair.
 */
export function echoRegistry(upstream: string, variants: readonly string[]): RegistryFileInput {
  const formats = UPSTREAM_FORMATS;
  const pairs = variants.flatMap((v) => formats.map((f) => [v, f] as const));
  const credentials = {
    anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
    openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    google: { kind: 'header', header: 'x-goog-api-key', secret: 'GEMINI_API_KEY' },
  };
  const credentialOf = (f: WireFormat) => (f === 'anthropic_messages' ? 'anthropic' : f === 'gemini_generate_content' ? 'google' : 'openai');
  const operation = (provider: string, f: WireFormat) => {
    switch (f) {
      case 'openai_chat':
        return { provider, format: f, family: 'chat', path: '/v1/chat/completions' };
      case 'openai_responses':
        return { provider, format: f, family: 'responses', path: '/v1/responses' };
      case 'anthropic_messages':
        return { provider, format: f, family: 'chat', path: '/v1/messages' };
      default:
        return {
          provider,
          format: f,
          family: 'chat',
          path: '/v1beta/models/{model}:generateContent',
          stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
        };
    }
  };
  const registry = {
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
    converters: formats.flatMap((from) => formats.filter((to) => to !== from).map((to) => ({ from, to }))),
    credentials,
    providers: Object.fromEntries(
      pairs.map(([v, f]) => [
        echoModel(f, v),
        {
          base_url: `${upstream}/${echoModel(f, v)}`,
          credential: credentialOf(f),
          ...(f === 'anthropic_messages' ? { headers: { 'anthropic-version': '2023-06-01' } } : {}),
        },
      ]),
    ),
    operations: pairs.map(([v, f]) => operation(echoModel(f, v), f)),
    models: Object.fromEntries(
      pairs.map(([v, f]) => [
        echoModel(f, v),
        {
          brand: credentialOf(f),
          entry_formats: [...CLIENT_FORMATS],
          tags: ['echo', v],
          capabilities: { tools: true, context_window: 200000, max_output_tokens: 4096 },
          deployments: [{ id: `${echoModel(f, v)}@echo`, provider: echoModel(f, v), format: f, upstream_model: 'echo-1', pricing: PRICING_SONNET }],
        },
      ]),
    ),
  };
  // Built with plain strings in loops: checked by the gateway when loaded.
  return registry as RegistryFileInput;
}

/** The echo upstreams of every format in every variant, for `startMockUpstream`; what they receive goes to `seen`. */
export function echoScenarios(variants: Readonly<Record<string, EchoVariant>>, seen: Seen[]): Record<string, Scenario> {
  return Object.fromEntries(Object.entries(variants).flatMap(([v, opts]) => UPSTREAM_FORMATS.map((f) => [echoModel(f, v), echoUpstream(f, v, opts, seen)])));
}
