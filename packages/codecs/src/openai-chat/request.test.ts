import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import type { Request } from '../ir/request.js';
import { openaiChatCodec as codec } from './index.js';

const decode = (body: unknown) => codec.decodeRequest(body);
const roundTrip = (body: Record<string, unknown>) => {
  const { request } = decode(body);
  return codec.encodeRequest(request, { stream: request.stream }).body;
};

/** What a wire → IR → wire trip legitimately normalises (see the codec's documented choices). */
function normalise(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (out.max_tokens !== undefined && out.max_completion_tokens === undefined) out.max_completion_tokens = out.max_tokens;
  delete out.max_tokens;
  if (out.stream === false) delete out.stream;
  if (typeof out.stop === 'string') out.stop = [out.stop];
  out.messages = (out.messages as Array<Record<string, unknown>>).map((m) => (m.role === 'developer' ? { ...m, role: 'system' } : m));
  return out;
}

describe('openai_chat request fixtures', () => {
  const files = fixtureFiles('openai-chat', '.json').filter((f) => f.includes('/request-'));

  it('finds the request fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)('%s decodes with nothing unclassified and round-trips', (file) => {
    const body = fixtureJson<Record<string, unknown>>(file);
    const decoded = decode(body);
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.warnings).toEqual([]);
    expect(roundTrip(body)).toEqual(normalise(body));
  });

  it('decodes a developer message, include_usage and max_completion_tokens', () => {
    const { request } = decode(fixtureJson('openai-chat/request-stream-include-usage.json'));
    expect(request.system).toEqual([{ type: 'text', text: "Hello, I'm a developer!" }]);
    expect(request.messages).toEqual([]);
    expect(request).toMatchObject({ model: 'gpt-5-nano', stream: true, includeUsage: true, maxTokens: 100, temperature: 1 });
  });

  it('decodes tools, tool_choice and strict', () => {
    const { request } = decode(fixtureJson('openai-chat/request-stream-tool-call.json'));
    expect(request.toolChoice).toEqual({ type: 'auto' });
    expect(request.tools).toHaveLength(1);
    expect(request.tools[0]).toMatchObject({ type: 'function', name: 'get_capital', description: '', strict: true });
    expect(request.tools[0]!.parameters).toMatchObject({ required: ['country'], additionalProperties: false });
  });

  it('keeps custom tools for OpenAI Chat, after the function tools', () => {
    const fn = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };
    const custom = { type: 'custom', custom: { name: 'shell', description: 'run anything' } };
    const { request, warnings } = decode({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [custom, fn] });
    expect(request.tools.map((t) => t.name)).toEqual(['get_weather']);
    expect(request.vendor).toEqual({ format: 'openai_chat', fields: { tools: [custom] } });
    expect(warnings).toMatchObject([{ code: 'lossy_conversion', path: 'tools[0]' }]);
    expect(codec.encodeRequest(request).body.tools).toEqual([fn, custom]);
  });

  it('decodes assistant tool calls with their exact argument text, and tool results', () => {
    const { request } = decode(fixtureJson('openai-chat/request-with-tool-result.json'));
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the capital of the UK? Use the tool, then answer.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', arguments: '{"country":"UK"}' }],
      },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', content: [{ type: 'text', text: 'London' }] }] },
    ]);
  });
});

describe('openai_chat request semantics', () => {
  it('keeps system order and hoists a late system message with a warning', () => {
    const { request, warnings } = decode({
      model: 'm',
      messages: [
        { role: 'system', content: 'one' },
        { role: 'developer', content: [{ type: 'text', text: 'two' }] },
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'three' },
      ],
    });
    expect(request.system.map((p) => p.text)).toEqual(['one', 'two', 'three']);
    expect(warnings).toEqual([expect.objectContaining({ code: 'lossy_conversion', path: 'messages[3]' })]);
  });

  it('maps images (data URI ⇄ base64, URL, detail), files, audio and cache_control', () => {
    const body = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look', cache_control: { type: 'ephemeral' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
            { type: 'file', file: { file_id: 'file-abc' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          ],
        },
      ],
    };
    const { request, warnings } = decode(body);
    expect(warnings).toEqual([]);
    expect(request.messages[0]!.content).toEqual([
      { type: 'text', text: 'look', cacheControl: { type: 'ephemeral' } },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, filename: 'a.pdf' },
      { type: 'file', source: { kind: 'file_id', fileId: 'file-abc' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'audio/wav', data: 'UklGRg==' } },
    ]);
    expect(roundTrip(body)).toEqual(body);
  });

  it('merges consecutive tool messages and splits them again', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city": "Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
      ],
      parallel_tool_calls: true,
    };
    const { request } = decode(body);
    expect(request.messages).toHaveLength(3);
    expect(request.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool_result', toolCallId: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
        { type: 'tool_result', toolCallId: 'call_2', content: [{ type: 'text', text: 'rain' }] },
      ],
    });
    const encoded = roundTrip(body);
    expect(encoded.messages).toEqual([body.messages[0], body.messages[1], body.messages[2], { role: 'tool', tool_call_id: 'call_2', content: 'rain' }]);
    expect(encoded.parallel_tool_calls).toBe(true);
  });

  it('decodes refusal and reasoning_content, and re-encodes unsigned reasoning', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a', reasoning_content: 'thinking', refusal: 'no' },
      ],
    };
    const { request } = decode(body);
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'thinking' },
      { type: 'text', text: 'a' },
      { type: 'refusal', text: 'no' },
    ]);
    expect(roundTrip(body)).toEqual(body);
  });

  it('drops signed or redacted reasoning of another vendor with a warning', () => {
    const request: Request = {
      model: 'm',
      system: [],
      stream: false,
      tools: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'secret', signature: 'sig', issuer: 'anthropic' },
            { type: 'reasoning', text: '', redactedData: 'xyz', issuer: 'anthropic' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    };
    const { body, warnings } = codec.encodeRequest(request);
    expect(body.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'answer' },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['signature_dropped', 'signature_dropped']);
  });

  it('warns when tool results carry images and when isError has no equivalent', () => {
    const request: Request = {
      system: [],
      stream: false,
      tools: [],
      messages: [
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolCallId: 'toolu_1',
              isError: true,
              content: [
                { type: 'text', text: 'failed' },
                { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
              ],
            },
          ],
        },
      ],
    };
    const { body, warnings } = codec.encodeRequest(request);
    expect(body.messages).toEqual([{ role: 'tool', tool_call_id: 'toolu_1', content: 'failed' }]);
    expect(warnings.map((w) => w.code)).toEqual(['lossy_conversion', 'lossy_conversion']);
  });

  it('decodes the legacy functions / function_call / function role as tools', () => {
    const { request } = decode({
      model: 'm',
      functions: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
      function_call: { name: 'lookup' },
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(request.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    const call = request.messages[1]!.content[0]!;
    expect(call).toMatchObject({ type: 'tool_call', name: 'lookup', arguments: '{"q":"x"}' });
    expect(request.messages[2]!.content[0]).toMatchObject({ type: 'tool_result', toolCallId: (call as { id: string }).id, toolName: 'lookup' });
    const encoded = codec.encodeRequest(request).body;
    expect(encoded.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    expect((encoded.messages as unknown[])[2]).toEqual({ role: 'tool', tool_call_id: (call as { id: string }).id, content: 'found' });
  });

  it('maps scalar settings, response_format, reasoning_effort and vendor fields both ways', () => {
    const body = {
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 50,
      top_p: 0.5,
      stop: ['END', 'STOP'],
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'low',
      user: 'u-1',
      metadata: { team: 'a' },
      service_tier: 'flex',
      tool_choice: { type: 'function', function: { name: 'f' } },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      logit_bias: { '50256': -100 },
      n: 1,
      store: false,
      verbosity: 'low',
      prompt_cache_key: 'k',
      stream: true,
      stream_options: { include_usage: false, include_obfuscation: false },
    };
    const { request, warnings, unclassified } = decode(body);
    expect(unclassified).toEqual([]);
    expect(warnings).toEqual([]);
    expect(request).toMatchObject({
      maxTokens: 50,
      topP: 0.5,
      stopSequences: ['END', 'STOP'],
      seed: 7,
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      reasoning: { effort: 'low' },
      user: 'u-1',
      metadata: { team: 'a' },
      serviceTier: 'flex',
      toolChoice: { type: 'tool', name: 'f' },
      includeUsage: false,
      vendor: {
        format: 'openai_chat',
        fields: { logit_bias: { '50256': -100 }, n: 1, store: false, verbosity: 'low', prompt_cache_key: 'k', stream_options: { include_obfuscation: false } },
      },
    });
    const encoded = codec.encodeRequest(request, { model: 'gpt-5-2025' }).body;
    // Upstream requests always ask for usage; max_tokens is sent under its current name.
    expect(encoded).toEqual({
      ...normalise(body),
      model: 'gpt-5-2025',
      stream_options: { include_obfuscation: false, include_usage: true },
    });
  });

  it('maps tool_choice values and json_object', () => {
    for (const choice of ['auto', 'none', 'required'] as const) {
      expect(decode({ messages: [], tool_choice: choice }).request.toolChoice).toEqual({ type: choice });
    }
    const { request } = decode({ messages: [], response_format: { type: 'json_object' }, reasoning_effort: 'none' });
    expect(request.responseFormat).toEqual({ type: 'json' });
    expect(request.reasoning).toEqual({ effort: 'none', enabled: false });
    expect(codec.encodeRequest(request).body).toMatchObject({ response_format: { type: 'json_object' }, reasoning_effort: 'none' });
  });

  it('drops another format’s vendor fields and IR-only settings with warnings', () => {
    const request: Request = {
      system: [],
      messages: [],
      tools: [{ type: 'function', name: 't', parameters: {}, cacheControl: { type: 'ephemeral' } }],
      stream: false,
      topK: 5,
      reasoning: { enabled: true, budgetTokens: 8000 },
      vendor: { format: 'anthropic_messages', fields: { container: 'c' } },
    };
    const { body, warnings } = codec.encodeRequest(request, { model: 'gpt-4o' });
    expect(body.reasoning_effort).toBe('medium');
    expect(body.container).toBeUndefined();
    expect(warnings.map((w) => `${w.code}:${w.path}`).sort()).toEqual(
      ['dropped_field:container', 'dropped_field:topK', 'dropped_field:tools[0].cacheControl', 'lossy_conversion:reasoning.budgetTokens'].sort(),
    );
  });

  it('reports unknown top-level fields as unclassified', () => {
    const { unclassified, warnings } = decode({ model: 'm', messages: [], top_k: 3, repetition_penalty: 1.1 });
    expect(unclassified).toEqual(['top_k', 'repetition_penalty']);
    expect(warnings.filter((w) => w.code === 'unclassified_field')).toHaveLength(2);
  });
});
