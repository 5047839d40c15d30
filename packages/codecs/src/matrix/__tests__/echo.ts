/**
 * The tool-call round trip through a client: an upstream answers with tool calls, the answer is
 * converted to the client's format, the client echoes the calls (by the ids it saw) with their
 * results in its next request, and that request is converted back to the upstream's format. The
 * upstream must get its own ids back (and, for Gemini, its thought signatures), with every result
 * paired to its call.
 */
import { expect } from 'vitest';
import { convertRequest } from '../../convert.js';
import type { AssistantContentPart, ToolCallPart } from '../../ir/content.js';
import type { Request } from '../../ir/request.js';
import type { WireFormat } from '../../ir/wire-format.js';
import { codecs } from '../../registry.js';
import { isSyntheticCallId } from '../../shared/tool-call-id.js';
import { MODEL_IN_URL, TIME_RESULT, TOOLS, WEATHER_RESULT } from './fixtures.js';
import { CLIENT_MODEL, UPSTREAM_MODEL, type Json } from './io.js';
import { assistantSemantic, parseArgs, type ToolCallView } from './semantic.js';

/** The tool calls of a response body exactly as a client of `format` sees them (ids as on the wire). */
export function clientCalls(format: WireFormat, body: Json): ToolCallView[] {
  const j = body as Record<string, any>;
  switch (format) {
    case 'openai_chat':
      return ((j.choices?.[0]?.message?.tool_calls ?? []) as any[]).map((c) => ({ id: c.id, name: c.function.name, args: parseArgs(c.function.arguments) }));
    case 'openai_responses':
      return ((j.output ?? []) as any[]).filter((i) => i.type === 'function_call').map((i) => ({ id: i.call_id, name: i.name, args: parseArgs(i.arguments) }));
    case 'anthropic_messages':
    case 'anthropic_vertex':
      return ((j.content ?? []) as any[]).filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input }));
    case 'gemini_generate_content': {
      // A Gemini client (google-genai) echoes the model's parts verbatim, thought signatures included.
      const content = codecs.gemini_generate_content.decodeResponse(structuredClone(body)).response.content;
      return content
        .filter((p): p is ToolCallPart => p.type === 'tool_call')
        .map((p) => {
          const view: ToolCallView = { id: p.id, name: p.name, args: parseArgs(p.arguments) };
          if (p.thoughtSignature !== undefined) view.thoughtSignature = p.thoughtSignature;
          return view;
        });
    }
    case 'bedrock_converse':
      return ((j.output?.message?.content ?? []) as any[])
        .filter((b) => b.toolUse !== undefined)
        .map((b) => ({ id: b.toolUse.toolUseId, name: b.toolUse.name, args: b.toolUse.input }));
  }
}

const resultFor = (name: string) => (name === 'get_time' ? TIME_RESULT : WEATHER_RESULT);

/** The client's next request: its earlier turn with the calls as it saw them, and their results. */
export function echoRequest(client: WireFormat, calls: ToolCallView[]): Request {
  const assistant: AssistantContentPart[] = calls.map((c) => {
    const part: ToolCallPart = { type: 'tool_call', id: c.id, name: c.name, arguments: JSON.stringify(c.args) };
    if (client === 'gemini_generate_content' && c.thoughtSignature !== undefined) part.thoughtSignature = c.thoughtSignature;
    return part;
  });
  const request: Request = {
    system: [],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: assistant },
      {
        role: 'tool',
        content: calls.map((c) => ({ type: 'tool_result' as const, toolCallId: c.id, content: [{ type: 'text' as const, text: resultFor(c.name) }] })),
      },
    ],
    tools: TOOLS,
    stream: false,
    maxTokens: 1024,
  };
  if (!MODEL_IN_URL.has(client)) request.model = CLIENT_MODEL;
  return request;
}

/**
 * Run the echo and assert the upstream sees its own calls: same names and arguments, its own ids
 * (Gemini's made-up ids stay made-up: it matches by order), its thought signatures restored, and
 * each result paired with its call.
 */
export function assertEcho(client: WireFormat, upstream: WireFormat, seen: ToolCallView[], original: ToolCallView[]): void {
  const encoded = codecs[client].encodeRequest(echoRequest(client, seen), { model: CLIENT_MODEL });
  expect(encoded.warnings, `the ${client} client's echo`).toEqual([]);
  const converted = convertRequest(encoded.body, client, upstream, { model: UPSTREAM_MODEL });
  expect(converted.warnings, `${client} echo → ${upstream}`).toEqual([]);
  const decoded = codecs[upstream].decodeRequest(structuredClone(converted.body), { model: UPSTREAM_MODEL });
  const calls = assistantSemantic(decoded.request.messages).toolCalls;
  expect(calls.map((c) => ({ name: c.name, args: c.args }))).toEqual(original.map((c) => ({ name: c.name, args: c.args })));
  calls.forEach((c, i) => {
    const o = original[i]!;
    if (isSyntheticCallId(o.id)) expect(isSyntheticCallId(c.id), `call ${i} id ${c.id}`).toBe(true);
    else expect(c.id).toBe(o.id);
    expect(c.thoughtSignature, `call ${i} thought signature`).toBe(o.thoughtSignature);
  });
  const results = decoded.request.messages.flatMap((m) => (m.role === 'tool' ? m.content : []));
  expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
  expect(results.map((r) => parseArgs(r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')))).toEqual(
    original.map((c) => parseArgs(resultFor(c.name))),
  );
}
