/**
 * A scripted stand-in for the vendor APIs, so the quickstart runs offline: it answers OpenAI
 * Chat Completions, OpenAI Responses, Anthropic Messages and Gemini generateContent requests
 * — streamed or not — with a short scripted text and realistic usage, in each vendor's wire
 * format. Given tools, it calls the first one, then answers with what the tool returned
 * (mock-tools.ts). It is a `fetch` the gateway calls instead of the network; point the
 * registry at the real APIs (see examples/service) and nothing else changes.
 */
import { toolTurn, type ToolTurn } from './mock-tools.js';

type Body = Record<string, unknown>;
type Vendor = 'openai' | 'anthropic' | 'google';

const encoder = new TextEncoder();
const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

/** The last thing the user said, whatever the format. */
function lastUserText(body: Body): string {
  const text = (content: unknown): string => {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : text((p as Body).text ?? (p as Body).content ?? ''))).join(' ');
    return '';
  };
  const turns = (body.messages ?? body.contents ?? (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input)) as
    Body[] | undefined;
  if (!Array.isArray(turns)) return '';
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'user' || turn.role === undefined) return text(turn.content ?? turn.parts).trim();
  }
  return '';
}

const clip = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}…` : flat;
};

/** The scripted answer, in word-sized pieces (one streamed delta each). */
function script(vendor: Vendor, model: string, body: Body, turn: ToolTurn | null = null): { pieces: string[]; inputTokens: number } {
  const said = clip(lastUserText(body));
  const quoted = said === '' ? '' : ` You said: “${said}”.`;
  const names = { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Gemini' } as const;
  const text =
    turn?.type === 'result'
      ? `The tool ${turn.name} answered: “${clip(turn.text)}”. That is what a scripted mock ${names[vendor]} API (model ${model}) makes of it; point the registry at the real API to get real answers.`
      : `Hello from the tollgate quickstart! This is a scripted answer from a mock ${names[vendor]} API (model ${model}).${quoted} Point the registry at the real API to get real answers.`;
  const pieces = text.match(/\S+\s*/g) ?? [text];
  // Roughly what a tokenizer would count: a token per 4 bytes of the request's text, plus framing.
  const inputTokens = 8 + Math.ceil(JSON.stringify(body.messages ?? body.input ?? body.contents ?? '').length / 4);
  return { pieces, inputTokens };
}

/** An SSE body that sends one event every `delayMs`, stopping when the gateway cancels. */
function sse(events: string[], delayMs: number, signal: AbortSignal | null): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i >= events.length || signal?.aborted) return controller.close();
      if (i > 0 && delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      controller.enqueue(encoder.encode(events[i++]));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
/** A string in two pieces, as streamed tool arguments arrive. */
const halves = (text: string) => (text.length < 2 ? [text] : [text.slice(0, text.length >> 1), text.slice(text.length >> 1)]);
const named = (type: string, value: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`;
const id = (prefix: string) => `${prefix}${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
const now = () => Math.floor(Date.now() / 1000);

function openaiChat(body: Body, signal: AbortSignal | null, delayMs: number): Response {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mock: the model is echoed as it came
  const model = String(body.model ?? 'gpt-4o-mini');
  const turn = toolTurn('openai-chat', body, lastUserText(body));
  const { pieces, inputTokens } = script('openai', model, body, turn);
  const usage = {
    prompt_tokens: inputTokens,
    completion_tokens: pieces.length,
    total_tokens: inputTokens + pieces.length,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
  const base = { id: id('chatcmpl-'), created: now(), model };
  if (turn?.type === 'call') {
    const args = JSON.stringify(turn.args);
    const call = { id: id('call_'), type: 'function', function: { name: turn.tool.name, arguments: args } };
    const callUsage = { ...usage, completion_tokens: 12, total_tokens: inputTokens + 12 };
    if (body.stream !== true) {
      return json({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call], refusal: null }, finish_reason: 'tool_calls' }],
        usage: callUsage,
      });
    }
    const chunk = (delta: Body, finish: string | null) =>
      data({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [
      chunk(
        { role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: turn.tool.name, arguments: '' } }] },
        null,
      ),
      ...halves(args).map((part) => chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }, null)),
      chunk({}, 'tool_calls'),
    ];
    if ((body.stream_options as Body | undefined)?.include_usage === true)
      events.push(data({ ...base, object: 'chat.completion.chunk', choices: [], usage: callUsage }));
    events.push('data: [DONE]\n\n');
    return sse(events, delayMs, signal);
  }
  if (body.stream !== true) {
    return json({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: pieces.join(''), refusal: null }, finish_reason: 'stop' }],
      usage,
    });
  }
  const chunk = (delta: Body, finish: string | null) =>
    data({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' }, null), ...pieces.map((p) => chunk({ content: p }, null)), chunk({}, 'stop')];
  if ((body.stream_options as Body | undefined)?.include_usage === true) events.push(data({ ...base, object: 'chat.completion.chunk', choices: [], usage }));
  events.push('data: [DONE]\n\n');
  return sse(events, delayMs, signal);
}

function openaiResponses(body: Body, signal: AbortSignal | null, delayMs: number): Response {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mock: the model is echoed as it came
  const model = String(body.model ?? 'gpt-4o-mini');
  const turn = toolTurn('openai-responses', body, lastUserText(body));
  const { pieces, inputTokens } = script('openai', model, body, turn);
  const text = pieces.join('');
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: pieces.length,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + pieces.length,
  };
  const messageId = id('msg_');
  const part = { type: 'output_text', annotations: [], text };
  const item = { id: messageId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
  const response = (status: string, output: unknown[], u: unknown) => ({
    id: id('resp_'),
    object: 'response',
    created_at: now(),
    status,
    model,
    output,
    usage: u,
    error: null,
    incomplete_details: null,
  });
  let seq = 0;
  const ev = (type: string, value: Record<string, unknown>) => named(type, { ...value, sequence_number: seq++ });
  if (turn?.type === 'call') {
    const args = JSON.stringify(turn.args);
    const call = { id: id('fc_'), type: 'function_call', status: 'completed', call_id: id('call_'), name: turn.tool.name, arguments: args };
    const callUsage = { ...usage, output_tokens: 12, total_tokens: inputTokens + 12 };
    if (body.stream !== true) return json(response('completed', [call], callUsage));
    return sse(
      [
        ev('response.created', { response: response('in_progress', [], null) }),
        ev('response.output_item.added', { output_index: 0, item: { ...call, status: 'in_progress', arguments: '' } }),
        ...halves(args).map((delta) => ev('response.function_call_arguments.delta', { item_id: call.id, output_index: 0, delta })),
        ev('response.function_call_arguments.done', { item_id: call.id, output_index: 0, arguments: args }),
        ev('response.output_item.done', { output_index: 0, item: call }),
        ev('response.completed', { response: response('completed', [call], callUsage) }),
      ],
      delayMs,
      signal,
    );
  }
  if (body.stream !== true) return json(response('completed', [item], usage));
  const at = { item_id: messageId, output_index: 0, content_index: 0 };
  const events = [
    ev('response.created', { response: response('in_progress', [], null) }),
    ev('response.in_progress', { response: response('in_progress', [], null) }),
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
    ev('response.content_part.added', { ...at, part: { ...part, text: '' } }),
    ...pieces.map((p) => ev('response.output_text.delta', { ...at, delta: p })),
    ev('response.output_text.done', { ...at, text }),
    ev('response.content_part.done', { ...at, part }),
    ev('response.output_item.done', { output_index: 0, item }),
    ev('response.completed', { response: response('completed', [item], usage) }),
  ];
  return sse(events, delayMs, signal);
}

function anthropicMessages(body: Body, signal: AbortSignal | null, delayMs: number): Response {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mock: the model is echoed as it came
  const model = String(body.model ?? 'claude');
  const turn = toolTurn('anthropic', body, lastUserText(body));
  const { pieces, inputTokens } = script('anthropic', model, body, turn);
  const message = { id: id('msg_'), type: 'message', role: 'assistant', model, stop_sequence: null };
  const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: pieces.length };
  if (turn?.type === 'call') {
    const block = { type: 'tool_use', id: id('toolu_'), name: turn.tool.name, input: turn.args };
    const callUsage = { ...usage, output_tokens: 12 };
    if (body.stream !== true) return json({ ...message, content: [block], stop_reason: 'tool_use', usage: callUsage });
    return sse(
      [
        named('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
        named('content_block_start', { index: 0, content_block: { ...block, input: {} } }),
        ...halves(JSON.stringify(turn.args)).map((partial_json) =>
          named('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } }),
        ),
        named('content_block_stop', { index: 0 }),
        named('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } }),
        named('message_stop', {}),
      ],
      delayMs,
      signal,
    );
  }
  if (body.stream !== true) {
    return json({ ...message, content: [{ type: 'text', text: pieces.join('') }], stop_reason: 'end_turn', usage });
  }
  const events = [
    named('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
    named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces.map((p) => named('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } })),
    named('content_block_stop', { index: 0 }),
    named('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: pieces.length } }),
    named('message_stop', {}),
  ];
  return sse(events, delayMs, signal);
}

function gemini(model: string, stream: boolean, body: Body, signal: AbortSignal | null, delayMs: number): Response {
  const turn = toolTurn('google', body, lastUserText(body));
  const { pieces, inputTokens } = script('google', model, body, turn);
  const usage = (out: number) => ({ promptTokenCount: inputTokens, candidatesTokenCount: out, totalTokenCount: inputTokens + out });
  const responseId = id('');
  if (turn?.type === 'call') {
    // Gemini sends a function call whole, streamed or not.
    const answer = {
      candidates: [{ content: { parts: [{ functionCall: { name: turn.tool.name, args: turn.args } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: usage(12),
      modelVersion: model,
      responseId,
    };
    return stream ? sse([data(answer)], delayMs, signal) : json(answer);
  }
  const answer = (text: string, out: number, finish: boolean) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finish ? { finishReason: 'STOP' } : {}), index: 0 }],
    usageMetadata: usage(out),
    modelVersion: model,
    responseId,
  });
  if (!stream) return json(answer(pieces.join(''), pieces.length, true));
  return sse(
    pieces.map((p, i) => data(answer(p, i + 1, i === pieces.length - 1))),
    delayMs,
    signal,
  );
}

export interface MockProviderOptions {
  /** Pause between streamed pieces, in ms (default 20): long enough to watch a stream arrive. */
  delayMs?: number;
}

/**
 * A `fetch` that plays the vendor APIs. Paths: `/openai/v1/chat/completions`,
 * `/openai/v1/responses`, `/anthropic/v1/messages`,
 * `/google/v1beta/models/{model}:generateContent` and `:streamGenerateContent`.
 */
export function createMockProvider(options: MockProviderOptions = {}): typeof fetch {
  const delayMs = options.delayMs ?? 20;
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const { pathname } = new URL(request.url);
    let body: Body;
    try {
      body = (await request.json()) as Body;
    } catch {
      return json({ error: { message: 'The mock provider expects a JSON body.' } }, 400);
    }
    const signal = request.signal;
    if (pathname === '/openai/v1/chat/completions') return openaiChat(body, signal, delayMs);
    if (pathname === '/openai/v1/responses') return openaiResponses(body, signal, delayMs);
    if (pathname === '/anthropic/v1/messages') return anthropicMessages(body, signal, delayMs);
    const g = /^\/google\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(pathname);
    if (g !== null) return gemini(decodeURIComponent(g[1]!), g[2] === 'streamGenerateContent', body, signal, delayMs);
    return json({ error: { message: `The mock provider has no ${pathname}.` } }, 404);
  };
}
