import { describe, expect, it } from 'vitest';
import type { Request } from '../ir/request.js';
import { openaiChatCodec } from '../openai-chat/index.js';
import { openaiResponsesCodec as codec, statefulFeatures } from './index.js';

type Json = Record<string, any>;

const decode = (body: unknown) => codec.decodeRequest(body);
const base = (extra: Json = {}): Request => ({ system: [], messages: [], tools: [], stream: false, ...extra });

describe('openai_responses stateful features and vendor fields', () => {
  const stateful = {
    model: 'gpt-5',
    previous_response_id: 'resp_prev',
    conversation: 'conv_1',
    background: true,
    prompt: { id: 'pmpt_1', version: '2' },
    store: true,
    input: [
      { type: 'item_reference', id: 'msg_old' },
      { role: 'user', content: 'search this' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed' },
    ],
    tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }],
    tool_choice: { type: 'web_search' },
  };

  it('decodes them into vendor fields and names each one', () => {
    const { request, unclassified } = decode(stateful);
    expect(unclassified).toEqual([]);
    expect(request.tools.map((t) => t.name)).toEqual(['f']);
    expect(request.toolChoice).toBeUndefined();
    expect(statefulFeatures(request)).toEqual([
      'previous_response_id',
      'conversation',
      'background',
      'prompt',
      'tools.web_search',
      'tools.file_search',
      'input.item_reference',
      'input.web_search_call',
    ]);
  });

  it('re-encodes them unchanged for a Responses upstream, items in place', () => {
    expect(codec.encodeRequest(decode(stateful).request).body).toEqual(stateful);
  });

  it('another format drops them with a warning each (the gateway refuses before that, using statefulFeatures)', () => {
    const { warnings } = openaiChatCodec.encodeRequest(decode(stateful).request);
    expect(warnings.map((w) => w.path).sort()).toEqual(
      ['background', 'conversation', 'input', 'previous_response_id', 'prompt', 'store', 'tool_choice', 'tools'].sort(),
    );
  });

  it('store alone is a vendor field, not a stateful feature; other formats have none', () => {
    const { request } = decode({ model: 'm', input: 'x', store: false, previous_response_id: '' });
    expect(request.vendor).toEqual({ format: 'openai_responses', fields: { store: false, previous_response_id: '' } });
    expect(statefulFeatures(request)).toEqual([]);
    expect(statefulFeatures(openaiChatCodec.decodeRequest({ model: 'm', messages: [], store: true }).request)).toEqual([]);
  });

  it('tool_choice: a named function, allowed_tools reduced for other formats but kept for Responses', () => {
    expect(decode({ input: [], tool_choice: { type: 'function', name: 'f' } }).request.toolChoice).toEqual({ type: 'tool', name: 'f' });
    const allowed = { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'f' }] };
    const { request, warnings } = decode({ input: [], tool_choice: allowed });
    expect(request.toolChoice).toEqual({ type: 'required' });
    expect(warnings).toEqual([expect.objectContaining({ code: 'lossy_conversion', path: 'tool_choice' })]);
    expect(codec.encodeRequest(request).body.tool_choice).toEqual(allowed);
  });

  it('text.format and reasoning map to the IR; verbosity and unknown settings stay vendor fields', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const body = {
      input: [],
      text: { format: { type: 'json_schema', name: 'out', description: 'd', schema, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'turbo', summary: 'auto', generate_summary: 'concise' },
    };
    const { request, warnings } = decode(body);
    expect(request.responseFormat).toEqual({ type: 'json_schema', name: 'out', description: 'd', schema, strict: true });
    expect(request.reasoning).toEqual({ summary: 'auto' });
    expect(request.vendor?.fields).toEqual({ text: { verbosity: 'low' }, reasoning: { effort: 'turbo', generate_summary: 'concise' } });
    expect(warnings).toEqual([expect.objectContaining({ path: 'reasoning.effort' })]);
    expect(codec.encodeRequest(request).body).toEqual(body);
    expect(decode({ input: [], text: { format: { type: 'json_object' } } }).request.responseFormat).toEqual({ type: 'json' });
    expect(decode({ input: [], reasoning: { effort: 'none' } }).request.reasoning).toEqual({ effort: 'none', enabled: false });
  });

  it('reports unknown top-level fields as unclassified', () => {
    const { unclassified, warnings } = decode({ model: 'm', input: 'x', surprise: 1 });
    expect(unclassified).toEqual(['surprise']);
    expect(warnings).toEqual([expect.objectContaining({ code: 'unclassified_field', path: 'surprise' })]);
  });
});

describe('openai_responses request encoding from other formats', () => {
  it('drops what the Responses API cannot take, with a warning each', () => {
    const { body, warnings } = codec.encodeRequest(
      base({
        model: 'gpt-5',
        system: [{ type: 'text', text: 'sys', cacheControl: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'thinking…', signature: 'sig', issuer: 'anthropic' },
              { type: 'reasoning', text: '', redactedData: 'opaque', issuer: 'anthropic' },
              { type: 'reasoning', text: 'plain thoughts' },
              { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{}', thoughtSignature: 'ts' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'boom' }], isError: true }] },
        ],
        topK: 5,
        stopSequences: ['END'],
        seed: 1,
        vendor: { format: 'anthropic_messages', fields: { container: 'c' } },
      }),
    );
    expect(body.input).toEqual([
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'toolu_1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'boom' },
    ]);
    expect(body.instructions).toBe('sys');
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ['dropped_field', 'container'],
      ['dropped_field', 'system[0].cacheControl'],
      ['signature_dropped', 'messages[1].content[0]'],
      ['signature_dropped', 'messages[1].content[1]'],
      ['dropped_field', 'messages[1].content[2]'],
      ['signature_dropped', 'messages[1].content[3].thoughtSignature'],
      ['lossy_conversion', 'messages[2].content[0].isError'],
      ['dropped_field', 'topK'],
      ['dropped_field', 'stopSequences'],
      ['dropped_field', 'seed'],
    ]);
  });

  it('reasoning settings: a budget becomes an effort, includeThoughts asks for summaries', () => {
    const encode = (reasoning: Request['reasoning']) => codec.encodeRequest(base({ reasoning })).body.reasoning;
    expect(encode({ enabled: true, budgetTokens: 1024 })).toEqual({ effort: 'low' });
    expect(encode({ budgetTokens: 10000 })).toEqual({ effort: 'medium' });
    expect(encode({ budgetTokens: 32000, includeThoughts: true })).toEqual({ effort: 'high', summary: 'auto' });
    expect(encode({ enabled: false })).toBeUndefined();
    expect(encode({ effort: 'minimal', summary: 'concise' })).toEqual({ effort: 'minimal', summary: 'concise' });
  });

  it('files and images from other formats', () => {
    const { body, warnings } = codec.encodeRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' }, filename: 'a.pdf' },
              { type: 'file', source: { kind: 'base64', mediaType: 'image/gif', data: 'R0lG' } },
              { type: 'file', source: { kind: 'url', url: 'https://x/doc.pdf' } },
              { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: 'aGk=' } },
            ],
          },
        ],
        responseFormat: { type: 'json_schema', schema: { type: 'object' } },
        stream: true,
      }),
    );
    expect(body.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBO' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBER', filename: 'a.pdf' },
          { type: 'input_image', detail: 'auto', image_url: 'data:image/gif;base64,R0lG' },
          { type: 'input_file', file_url: 'https://x/doc.pdf' },
          { type: 'input_file', file_data: 'data:text/plain;base64,aGk=' },
        ],
      },
    ]);
    expect(body).toMatchObject({ stream: true, text: { format: { type: 'json_schema', name: 'response', schema: { type: 'object' } } } });
    expect(warnings).toEqual([expect.objectContaining({ code: 'lossy_conversion', path: 'messages[0].content[4]' })]);
  });

  it('the model option replaces the request model', () => {
    expect(codec.encodeRequest(base({ model: 'alias' }), { model: 'gpt-5-2025-08-07' }).body.model).toBe('gpt-5-2025-08-07');
  });
});
