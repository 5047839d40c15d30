/**
 * The matrix's source payloads, in canonical form and native to each format: the ids, opaque
 * values and shapes a real client or upstream of that format would produce. Each is encoded by
 * its own format's codec before conversion (see io.ts).
 */
import type { AssistantContentPart, ImagePart, ReasoningPart, ToolCallPart } from '../../ir/content.js';
import type { FinishReason } from '../../ir/finish-reason.js';
import type { Message } from '../../ir/message.js';
import type { ReasoningConfig, Request } from '../../ir/request.js';
import type { Response } from '../../ir/response.js';
import type { StreamEvent } from '../../ir/stream-event.js';
import type { ToolDefinition } from '../../ir/tool.js';
import type { Usage } from '../../ir/usage.js';
import { ISSUER_OF_FORMAT, type Issuer, type WireFormat } from '../../ir/wire-format.js';
import { errorInfo, type ErrorInfo } from '../../errors/gateway-error.js';
import { foldSignature, syntheticCallId } from '../../shared/tool-call-id.js';
import { UPSTREAM_MODEL } from './io.js';

const bytesToBase64 = (n: number, seed: number) => btoa(String.fromCharCode(...Array.from({ length: n }, (_, i) => (i * 151 + seed * 17 + 3) % 256)));

const RESPONSE_ID_GEMINI = 'g5YoaezOBeyrqtsPwYqL2Q8';

/** Opaque values, distinctive enough to search for in any wire body. */
export const OPAQUE = {
  anthropicSignature: 'SIGanthropic_EqQBCkYIBxgCKkDbZ3u9nKq1wQ==',
  anthropicRedacted: 'REDACTEDanthropic_EmwKAhgBEgwCFxMt9Ykq',
  openaiEncrypted: 'ENCopenai_gAAAAABoZ3NlY3JldC1yZWFzb25pbmc=',
  /** Canonical base64 with `+` and `/`: folded into ids as base64url. */
  googleThought: bytesToBase64(48, 1),
  googleCall: bytesToBase64(60, 2),
  googleCall2: bytesToBase64(57, 3),
} as const;

export const TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
  },
  {
    type: 'function',
    name: 'get_time',
    description: 'Local time in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

export const WEATHER_ARGS = '{"city":"Paris"}';
export const TIME_ARGS = '{"city":"Tōkyō"}';
export const WEATHER_RESULT = '{"temp_c":21,"sky":"clear"}';
export const TIME_RESULT = '{"time":"18:04"}';

const isGemini = (f: WireFormat) => f === 'gemini_generate_content';

/** Formats whose requests carry the model in the URL, not the body. */
export const MODEL_IN_URL: ReadonlySet<WireFormat> = new Set(['gemini_generate_content', 'anthropic_vertex', 'bedrock_converse']);

/** A tool-call id as `format` issues it. Gemini often sends none: the codec numbers calls per scope. */
export function nativeCallId(format: WireFormat, n: number, scope?: string): string {
  switch (format) {
    case 'openai_chat':
      return ['call_Qx7mZr2LkP0aBc', 'call_Wd3nYt8JhS5eFg', 'call_Zp1'][n]!;
    case 'openai_responses':
      return ['call_resp9Kd2Lm', 'call_resp4Hj7Qw', 'call_resp1'][n]!;
    case 'anthropic_messages':
    case 'anthropic_vertex':
      return ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B7bqSeMW1nPd2bXZ5c3yT4', 'toolu_01C'][n]!;
    case 'gemini_generate_content':
      return syntheticCallId(n, scope);
    case 'bedrock_converse':
      return ['tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', 'tooluse_Xb2nYt8JhS5eFgQw1rT0aA', 'tooluse_C'][n]!;
  }
}

/** A tool call as `format` writes it (Gemini 2.5+ signs its function calls). */
function call(format: WireFormat, n: number, name: string, args: string, scope?: string): ToolCallPart {
  const part: ToolCallPart = { type: 'tool_call', id: nativeCallId(format, n, scope), name, arguments: args };
  if (isGemini(format)) part.thoughtSignature = n === 0 ? OPAQUE.googleCall : OPAQUE.googleCall2;
  if (format === 'openai_responses') part.itemId = `fc_item${n}`;
  return part;
}

function result(id: string, text: string): Extract<Message, { role: 'tool' }>['content'][number] {
  return { type: 'tool_result', toolCallId: id, content: [{ type: 'text', text }] };
}

function request(format: WireFormat, messages: Message[], extra: Partial<Request> = {}): Request {
  const req: Request = { system: [{ type: 'text', text: 'You are terse.' }], messages, tools: [], stream: false, maxTokens: 8192, ...extra };
  if (!MODEL_IN_URL.has(format)) req.model = 'client-model';
  return req;
}

// ---------------------------------------------------------------- requests

export function textRequest(format: WireFormat): Request {
  return request(format, [{ role: 'user', content: [{ type: 'text', text: 'Say hello to the world ✓ — «in French»' }] }], { temperature: 0.5, topP: 0.9 });
}

/** One tool call with its result: the request that follows the model's call. */
export function toolRequest(format: WireFormat): Request {
  const c = call(format, 0, 'get_weather', WEATHER_ARGS);
  return request(
    format,
    [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, c] },
      { role: 'tool', content: [result(c.id, WEATHER_RESULT)] },
    ],
    { tools: TOOLS, toolChoice: { type: 'auto' } },
  );
}

export function parallelRequest(format: WireFormat): Request {
  const a = call(format, 0, 'get_weather', WEATHER_ARGS);
  const b = call(format, 1, 'get_time', TIME_ARGS);
  return request(
    format,
    [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and time in Tokyo?' }] },
      { role: 'assistant', content: [a, b] },
      { role: 'tool', content: [result(a.id, WEATHER_RESULT), result(b.id, TIME_RESULT)] },
    ],
    { tools: TOOLS },
  );
}

export const REASONING_TEXT = 'The user greets me; a short greeting is enough.';

/** Reasoning as `format` returns it (and its client sends it back). */
export function nativeReasoning(format: WireFormat): ReasoningPart[] {
  switch (format) {
    case 'openai_chat':
      // Chat Completions servers that show reasoning (reasoning_content) sign nothing.
      return [{ type: 'reasoning', text: REASONING_TEXT }];
    case 'openai_responses':
      return [{ type: 'reasoning', text: REASONING_TEXT, itemId: 'rs_0a1b2c', encryptedContent: OPAQUE.openaiEncrypted, issuer: 'openai' }];
    case 'anthropic_messages':
    case 'anthropic_vertex':
    case 'bedrock_converse':
      // Claude on Bedrock signs and redacts its thinking as on Anthropic's own API.
      return [
        { type: 'reasoning', text: REASONING_TEXT, signature: OPAQUE.anthropicSignature, issuer: 'anthropic' },
        { type: 'reasoning', text: '', redactedData: OPAQUE.anthropicRedacted, issuer: 'anthropic' },
      ];
    case 'gemini_generate_content':
      // A thought summary, then the signature Gemini puts on the first answer part.
      return [
        { type: 'reasoning', text: REASONING_TEXT, issuer: 'google' },
        { type: 'reasoning', text: '', signature: OPAQUE.googleThought, issuer: 'google' },
      ];
  }
}

export function reasoningConfig(format: WireFormat): ReasoningConfig {
  switch (format) {
    case 'openai_chat':
      return { effort: 'medium' };
    case 'openai_responses':
      return { effort: 'medium', summary: 'auto' };
    case 'anthropic_messages':
    case 'anthropic_vertex':
    case 'bedrock_converse':
      return { enabled: true, budgetTokens: 4096 };
    case 'gemini_generate_content':
      return { budgetTokens: 4096, includeThoughts: true };
  }
}

/** A conversation with the model's earlier reasoning and its opaque values, as the client sends it back. */
export function thinkingRequest(format: WireFormat): Request {
  return request(
    format,
    [
      { role: 'user', content: [{ type: 'text', text: 'Hello?' }] },
      { role: 'assistant', content: [...nativeReasoning(format), { type: 'text', text: 'Hello!' }] },
      { role: 'user', content: [{ type: 'text', text: 'And in French?' }] },
    ],
    { reasoning: reasoningConfig(format) },
  );
}

/** The opaque values a thinking request of `format` carries, with the vendor that issued each. */
export function thinkingRequestOpaque(format: WireFormat): Array<{ value: string; issuer: Issuer }> {
  return nativeReasoning(format).flatMap((p) =>
    [p.signature, p.redactedData, p.encryptedContent].filter((v): v is string => v !== undefined).map((value) => ({ value, issuer: p.issuer! })),
  );
}

/** The id a client of another format saw for a Gemini call: the thought signature folded in. */
export const FOLDED_GEMINI_ID = foldSignature(syntheticCallId(0, RESPONSE_ID_GEMINI), OPAQUE.googleCall);

/**
 * A call that a Gemini upstream made, echoed with its result: a Gemini client carries the thought
 * signature on the part, any other client inside the id it was shown.
 */
export function geminiCallRequest(format: WireFormat): Request {
  if (isGemini(format)) return toolRequest(format);
  const c: ToolCallPart = { type: 'tool_call', id: FOLDED_GEMINI_ID, name: 'get_weather', arguments: WEATHER_ARGS };
  return request(
    format,
    [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, c] },
      { role: 'tool', content: [result(c.id, WEATHER_RESULT)] },
    ],
    { tools: TOOLS, toolChoice: { type: 'auto' } },
  );
}

export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const IMAGE_URL = 'https://upload.example.com/photos/cat.jpg';
/** Bedrock takes images inline or from S3, never from the web. */
export const S3_IMAGE_URL = 's3://example-bucket/photos/cat.jpg';

/** The image URL a client of `format` can send. */
export function imageUrlFor(format: WireFormat): string {
  return format === 'bedrock_converse' ? S3_IMAGE_URL : IMAGE_URL;
}

export function imageRequest(format: WireFormat): Request {
  const url = imageUrlFor(format);
  const images: ImagePart[] = [
    { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_BASE64 } },
    { type: 'image', source: isGemini(format) || format === 'bedrock_converse' ? { kind: 'url', url, mediaType: 'image/jpeg' } : { kind: 'url', url } },
  ];
  // The Responses API requires the `detail` hint on every input image.
  if (format === 'openai_responses') for (const image of images) image.detail = 'auto';
  return request(format, [{ role: 'user', content: [{ type: 'text', text: 'What is in these two pictures?' }, ...images] }]);
}

// ---------------------------------------------------------------- responses and streams

/** Non-overlapping usage with every kind set. */
export const USAGE: Usage = { input: 1200, output: 340, cacheRead: 800, cacheWrite: 150, cacheWrite1h: 50, reasoning: 120, measured: true };
const SMALL_USAGE: Usage = { input: 12, output: 9, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true };

const RESPONSE_IDS: Record<WireFormat, string> = {
  openai_chat: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  openai_responses: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
  anthropic_messages: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  anthropic_vertex: 'msg_vrtx_01XFDUDYJgAACzvnptvVoYEL',
  gemini_generate_content: RESPONSE_ID_GEMINI,
  // Converse answers carry no id.
  bedrock_converse: '',
};

export function responseId(format: WireFormat): string {
  return RESPONSE_IDS[format];
}

const finish = (unified: FinishReason['unified']): FinishReason => ({ unified, raw: null });

function response(format: WireFormat, content: AssistantContentPart[], reason: FinishReason['unified'], usage: Usage = SMALL_USAGE): Response {
  return { id: responseId(format), model: UPSTREAM_MODEL, content, finishReason: finish(reason), usage };
}

export const ANSWER = 'Bonjour, le monde ✓ — «salut»!';

export function textResponse(format: WireFormat, reason: 'stop' | 'length' = 'stop'): Response {
  return response(format, [{ type: 'text', text: ANSWER }], reason);
}

export function toolResponse(format: WireFormat): Response {
  return response(format, [{ type: 'text', text: 'Let me check.' }, call(format, 0, 'get_weather', WEATHER_ARGS, responseId(format))], 'tool_calls');
}

export function parallelResponse(format: WireFormat): Response {
  const scope = responseId(format);
  return response(format, [call(format, 0, 'get_weather', WEATHER_ARGS, scope), call(format, 1, 'get_time', TIME_ARGS, scope)], 'tool_calls');
}

export function thinkingResponse(format: WireFormat): Response {
  return response(format, [...nativeReasoning(format), { type: 'text', text: ANSWER }], 'stop');
}

export function usageResponse(format: WireFormat): Response {
  return response(format, [{ type: 'text', text: ANSWER }], 'stop', USAGE);
}

/** The opaque values of a thinking response of `format`. */
export function thinkingResponseOpaque(format: WireFormat): Array<{ value: string; issuer: Issuer }> {
  return nativeReasoning(format).flatMap((p) =>
    [p.signature, p.redactedData, p.encryptedContent].filter((v): v is string => v !== undefined).map((value) => ({ value, issuer: p.issuer! })),
  );
}

/** Split text into a few uneven deltas. */
function pieces(text: string): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0, n = 1; i < chars.length; i += n, n += 3) out.push(chars.slice(i, i + n).join(''));
  return out;
}

function start(format: WireFormat, usage: Usage): StreamEvent {
  // The input side of usage is known at the start (Anthropic reports it there).
  return { type: 'message_start', id: responseId(format), model: UPSTREAM_MODEL, usage: { ...usage, output: 1, reasoning: 0 } };
}

function textBlock(index: number, text: string): StreamEvent[] {
  return [
    { type: 'block_start', index, block: { kind: 'text' } },
    ...pieces(text).map((t): StreamEvent => ({ type: 'text_delta', index, text: t })),
    { type: 'block_stop', index },
  ];
}

function end(reason: FinishReason['unified'], usage: Usage): StreamEvent[] {
  return [{ type: 'finish', finishReason: finish(reason) }, { type: 'usage', usage }, { type: 'message_stop' }];
}

export function textStream(format: WireFormat): StreamEvent[] {
  return [start(format, SMALL_USAGE), ...textBlock(0, ANSWER), ...end('stop', SMALL_USAGE)];
}

function toolStart(format: WireFormat, index: number, c: ToolCallPart): StreamEvent {
  const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'tool_call', id: c.id, name: c.name, issuer: ISSUER_OF_FORMAT[format] };
  if (c.thoughtSignature !== undefined) block.thoughtSignature = c.thoughtSignature;
  if (c.itemId !== undefined) block.itemId = c.itemId;
  return { type: 'block_start', index, block };
}

function toolSignature(index: number, c: ToolCallPart): StreamEvent[] {
  return c.thoughtSignature === undefined ? [] : [{ type: 'signature', index, signature: c.thoughtSignature, issuer: 'google' }];
}

export function toolStream(format: WireFormat): StreamEvent[] {
  const c = call(format, 0, 'get_weather', WEATHER_ARGS, responseId(format));
  return [
    start(format, SMALL_USAGE),
    ...textBlock(0, 'Let me check.'),
    toolStart(format, 1, c),
    ...toolSignature(1, c),
    ...pieces(WEATHER_ARGS).map((delta): StreamEvent => ({ type: 'tool_args_delta', index: 1, delta })),
    { type: 'block_stop', index: 1 },
    ...end('tool_calls', SMALL_USAGE),
  ];
}

/**
 * Two calls in one turn. Sequential is how every vendor streams them; interleaved argument
 * deltas are valid wire too (Chat Completions and Responses address calls by index), and are what
 * a canonical stream may hold.
 */
export function parallelStream(format: WireFormat, interleaved = false): StreamEvent[] {
  const scope = responseId(format);
  const a = call(format, 0, 'get_weather', WEATHER_ARGS, scope);
  const b = call(format, 1, 'get_time', TIME_ARGS, scope);
  const da = pieces(WEATHER_ARGS).map((delta): StreamEvent => ({ type: 'tool_args_delta', index: 0, delta }));
  const db = pieces(TIME_ARGS).map((delta): StreamEvent => ({ type: 'tool_args_delta', index: 1, delta }));
  const stop = (index: number): StreamEvent => ({ type: 'block_stop', index });
  if (!interleaved) {
    return [
      start(format, SMALL_USAGE),
      toolStart(format, 0, a),
      ...toolSignature(0, a),
      ...da,
      stop(0),
      toolStart(format, 1, b),
      ...toolSignature(1, b),
      ...db,
      stop(1),
      ...end('tool_calls', SMALL_USAGE),
    ];
  }
  const deltas: StreamEvent[] = [];
  for (let i = 0; i < Math.max(da.length, db.length); i++) deltas.push(...(da[i] === undefined ? [] : [da[i]!]), ...(db[i] === undefined ? [] : [db[i]!]));
  return [
    start(format, SMALL_USAGE),
    toolStart(format, 0, a),
    ...toolSignature(0, a),
    toolStart(format, 1, b),
    ...toolSignature(1, b),
    ...deltas,
    stop(0),
    stop(1),
    ...end('tool_calls', SMALL_USAGE),
  ];
}

export function thinkingStream(format: WireFormat): StreamEvent[] {
  const events: StreamEvent[] = [start(format, SMALL_USAGE)];
  let index = 0;
  for (const part of nativeReasoning(format)) {
    if (part.text === '' && part.signature !== undefined && part.issuer === 'google') {
      // A Gemini signature rides on the reasoning block it closes.
      events.splice(events.length - 1, 0, { type: 'signature', index: index - 1, signature: part.signature, issuer: 'google' });
      continue;
    }
    const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'reasoning' };
    if (part.issuer !== undefined) block.issuer = part.issuer;
    if (part.redactedData !== undefined) block.redactedData = part.redactedData;
    if (part.itemId !== undefined) block.itemId = part.itemId;
    events.push({ type: 'block_start', index, block });
    for (const t of part.text === '' ? [] : pieces(part.text)) events.push({ type: 'reasoning_delta', index, text: t });
    if (part.signature !== undefined) events.push({ type: 'signature', index, signature: part.signature, issuer: part.issuer! });
    if (part.encryptedContent !== undefined) events.push({ type: 'signature', index, signature: part.encryptedContent, issuer: 'openai' });
    events.push({ type: 'block_stop', index });
    index++;
  }
  return [...events, ...textBlock(index, ANSWER), ...end('stop', SMALL_USAGE)];
}

export function usageStream(format: WireFormat): StreamEvent[] {
  return [start(format, USAGE), ...textBlock(0, ANSWER), ...end('stop', USAGE)];
}

// ---------------------------------------------------------------- errors

export const PARTIAL = 'The answer starts like th';

/** A stream that fails after some text: the upstream's in-stream error event. */
export function errorStream(format: WireFormat, error: ErrorInfo): StreamEvent[] {
  return [
    start(format, SMALL_USAGE),
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    ...pieces(PARTIAL).map((t): StreamEvent => ({ type: 'text_delta', index: 0, text: t })),
    { type: 'error', error },
  ];
}

/** The same stream, cut off: no terminal event at all (the connection dropped). */
export function cutStream(format: WireFormat): StreamEvent[] {
  return [
    start(format, SMALL_USAGE),
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    ...pieces(PARTIAL).map((t): StreamEvent => ({ type: 'text_delta', index: 0, text: t })),
  ];
}

/** Upstream errors, as canonical errors the source codec renders into its own error body. */
export const HTTP_ERRORS: ErrorInfo[] = [
  errorInfo('invalid_request', 'max_tokens: must be at most 64000.', { param: 'max_tokens' }),
  errorInfo('authentication_failed', 'Invalid API key.'),
  errorInfo('permission_denied', 'This key may not use this model.'),
  errorInfo('not_found', 'No such model.'),
  errorInfo('rate_limited', 'Too many requests, retry shortly.', { retryAfterS: 20 }),
  errorInfo('quota_exceeded', 'You exceeded your current quota.'),
  errorInfo('overloaded', 'The model is overloaded.'),
  errorInfo('unavailable', 'The service is unavailable.'),
  errorInfo('upstream_error', 'Internal server error.'),
];

export const STREAM_ERROR = errorInfo('overloaded', 'Overloaded mid-stream.');
