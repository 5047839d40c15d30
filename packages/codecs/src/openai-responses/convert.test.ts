/** The openai_responses codec through the public convert functions, across formats. */
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson, fixtureText } from '../../../../test/support/fixtures.js';
import { assemble as assembleAnthropic } from '../anthropic-messages/__tests__/harness.js';
import { convertRequest, convertResponse } from '../convert.js';
import { convertStream } from '../convert-stream.js';
import type { WireFormat } from '../ir/wire-format.js';
import { payloads as chatPayloads } from '../openai-chat/__tests__/harness.js';
import { readAll, streamOf } from '../__tests__/harness.js';
import { assemble, bytes, outputText, sliceAt, type Json } from './__tests__/harness.js';

const convert = (text: string, from: WireFormat, to: WireFormat, model?: string) =>
  readAll(convertStream(streamOf(sliceAt(bytes(text), [7, 300, 301, 2000])), from, to, model === undefined ? {} : { model }));

/** The function calls of a Chat Completions stream, assembled by index. */
function chatCalls(sse: string): Array<{ id: string; name: string; arguments: string }> {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const chunk of chatPayloads(sse)) {
    if (chunk === '[DONE]') continue;
    for (const call of ((chunk as Json).choices?.[0]?.delta?.tool_calls ?? []) as Json[]) {
      calls[call.index] ??= { id: '', name: '', arguments: '' };
      const c = calls[call.index]!;
      if (call.id) c.id = call.id;
      if (call.function?.name) c.name = call.function.name;
      c.arguments += call.function?.arguments ?? '';
    }
  }
  return calls;
}

describe('Anthropic streams → openai_responses', () => {
  it.each(fixtureFiles('anthropic-messages', '.sse'))('%s: a well-formed Responses stream', async (file) => {
    const out = assemble(await convert(fixtureText(file), 'anthropic_messages', 'openai_responses', 'claude-haiku'));
    expect(out.final?.model).toBe('claude-haiku');
    if (file.includes('error')) {
      expect(out.error).toMatchObject({ code: 'overloaded' });
      expect(out.terminal).toBe('response.failed');
    } else {
      expect(out.terminal).toBe('response.completed');
    }
  });

  it('stream-thinking-then-tool-use.sse: thinking as a reasoning summary, the tool call, usage; no Anthropic signature', async () => {
    const text = fixtureText('anthropic-messages/stream-thinking-then-tool-use.sse');
    const sse = await convert(text, 'anthropic_messages', 'openai_responses');
    const out = assemble(sse).final!;
    expect(out.id).toBe('resp_msg_01JdU4xqNHXL9QCFWkwCDKGr');
    expect(out.output).toEqual([
      {
        id: 'rs_01JdU4xqNHXL9QCFWkwCDKGr_0',
        type: 'reasoning',
        summary: [
          {
            type: 'summary_text',
            text: 'The user wants me to:\n1. Use the fixed_version tool\n2. Tell them the version\n3. Make a short joke about it\n\nLet me first call the fixed_version tool to see what version it returns.',
          },
        ],
      },
      {
        id: 'fc_01JdU4xqNHXL9QCFWkwCDKGr_1',
        type: 'function_call',
        status: 'completed',
        arguments: '{}',
        call_id: 'toolu_01825dXWLSoJwCst1qTsiWdb',
        name: 'fixed_version',
      },
    ]);
    expect(out.usage).toEqual({
      input_tokens: 598,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 92,
      output_tokens_details: { reasoning_tokens: 53 },
      total_tokens: 690,
    });
    expect(sse).not.toContain('EoQDCm0IDhgCKkCDzGs2kL2PgnDCZU');
  });

  it('stream-prompt-cache-usage.sse: cache reads and writes are counted inside input_tokens', async () => {
    const out = assemble(await convert(fixtureText('anthropic-messages/stream-prompt-cache-usage.sse'), 'anthropic_messages', 'openai_responses')).final!;
    // The final message_delta: input 6, cache_read 6289, cache_creation 3337, output 198.
    expect(out.usage).toEqual({
      input_tokens: 6 + 6289 + 3337,
      input_tokens_details: { cached_tokens: 6289, cache_write_tokens: 3337 },
      output_tokens: 198,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 6 + 6289 + 3337 + 198,
    });
  });

  it('stream-tool-use-parallel.sse → openai_responses → anthropic_messages: the same tool calls come back', async () => {
    const original = assembleAnthropic(fixtureText('anthropic-messages/stream-tool-use-parallel.sse'));
    const responses = await convert(fixtureText('anthropic-messages/stream-tool-use-parallel.sse'), 'anthropic_messages', 'openai_responses');
    const back = assembleAnthropic(await convert(responses, 'openai_responses', 'anthropic_messages'));
    const calls = (m: typeof original) => m.content.filter((b) => b.type === 'tool_use').map((b) => [b.id, b.name, b.input]);
    expect(calls(back)).toEqual(calls(original));
    expect(back.stop_reason).toBe('tool_use');
    expect(back.usage).toMatchObject({ input_tokens: original.usage['input_tokens'], output_tokens: original.usage['output_tokens'] });
  });
});

describe('openai_responses streams → other formats and back', () => {
  it('stream-reasoning-summary-text.sse → anthropic_messages: thinking and text; → back: the same summary and answer', async () => {
    const text = fixtureText('openai-responses/stream-reasoning-summary-text.sse');
    const original = assemble(text).final!;
    const anthropic = await convert(text, 'openai_responses', 'anthropic_messages');
    const message = assembleAnthropic(anthropic);
    const summaries = (original.output[0].summary as Json[]).map((s) => s.text as string);
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'thinking', 'thinking', 'thinking', 'text']);
    expect(message.content.slice(0, 4).map((b) => b['thinking'])).toEqual(summaries);
    expect(message.content[4]!['text']).toBe(outputText(original));
    expect(message.usage).toMatchObject({ input_tokens: 13, output_tokens: 1680 });
    expect(anthropic).not.toContain('gAAAAA'); // OpenAI's encrypted reasoning never reaches Anthropic

    const back = assemble(await convert(anthropic, 'anthropic_messages', 'openai_responses')).final!;
    expect(outputText(back)).toBe(outputText(original));
    expect(back.output.filter((i: Json) => i.type === 'reasoning').flatMap((i: Json) => i.summary.map((s: Json) => s.text))).toEqual(summaries);
  });

  it('stream-function-call-reasoning.sse → openai_chat: the call, tool_calls, usage with reasoning tokens; → back', async () => {
    const text = fixtureText('openai-responses/stream-function-call-reasoning.sse');
    const chat = await convert(text, 'openai_responses', 'openai_chat');
    expect(chatCalls(chat)).toEqual([{ id: 'call_CWXgs68YprAjp6t0371hiPOI', name: 'final_result', arguments: '{"result":6666}' }]);
    const chunks = chatPayloads(chat) as Json[];
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.find((c) => c.usage)?.usage).toMatchObject({
      prompt_tokens: 53,
      completion_tokens: 469,
      completion_tokens_details: { reasoning_tokens: 448 },
    });

    const back = assemble(await convert(chat, 'openai_chat', 'openai_responses')).final!;
    expect(back.output.map((i: Json) => [i.type, i.call_id, i.name, i.arguments])).toEqual([
      ['function_call', 'call_CWXgs68YprAjp6t0371hiPOI', 'final_result', '{"result":6666}'],
    ]);
    expect(back.usage).toMatchObject({ input_tokens: 53, output_tokens: 469, output_tokens_details: { reasoning_tokens: 448 } });
  });

  it('openai-chat/stream-tool-calls-parallel.sse → openai_responses: two function_call items', async () => {
    const out = assemble(await convert(fixtureText('openai-chat/stream-tool-calls-parallel.sse'), 'openai_chat', 'openai_responses')).final!;
    expect(out.output.map((i: Json) => [i.call_id, i.name, JSON.parse(i.arguments)])).toEqual([
      ['call_JMW1whyEaYG438VE1OIflxA2', 'GetWeatherArgs', { city: 'Edinburgh', country: 'GB', units: 'c' }],
      ['call_DNYTawLBoN8fj3KN6qU9N1Ou', 'get_stock_price', { ticker: 'AAPL', exchange: 'NASDAQ' }],
    ]);
  });

  it('stream-error-insufficient-quota.sse → the in-stream error of each format', async () => {
    const text = fixtureText('openai-responses/stream-error-insufficient-quota.sse');
    const chat = chatPayloads(await convert(text, 'openai_responses', 'openai_chat')) as Json[];
    expect(chat.at(-1)).toEqual({
      error: { type: 'insufficient_quota', code: 'insufficient_quota', param: null, message: expect.stringContaining('exceeded your current quota') },
    });
    const anthropic = assembleAnthropic(await convert(text, 'openai_responses', 'anthropic_messages'));
    expect(anthropic.error).toMatchObject({ message: expect.stringContaining('exceeded your current quota') });
    expect(await convert(text, 'openai_responses', 'openai_responses')).toBe(text); // identity: bytes unchanged
  });
});

describe('openai_responses requests and responses across formats', () => {
  it('request-with-function-call-output.json → openai_chat and anthropic_messages', () => {
    const body = fixtureJson('openai-responses/request-with-function-call-output.json');
    const chat = convertRequest(body, 'openai_responses', 'openai_chat');
    expect(chat.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'What is the capital of PotatoLand?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', type: 'function', function: { name: 'get_capital', arguments: '{"country":"PotatoLand"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', content: 'Potato City' },
      ],
      tools: [{ type: 'function', function: { name: 'get_capital', parameters: (body as Json).tools[0].parameters, strict: true } }],
      tool_choice: 'auto',
    });
    const anthropic = convertRequest(body, 'openai_responses', 'anthropic_messages', { model: 'claude-sonnet-4-5' });
    expect(anthropic.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', name: 'get_capital', input: { country: 'PotatoLand' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_YfwRsW8sUxDKipwyhWTzOXCA' }] },
      ],
      tool_choice: { type: 'auto' },
    });
  });

  it('anthropic request-with-tool-results.json → openai_responses: function_call and function_call_output items', () => {
    const { body, warnings } = convertRequest(fixtureJson('anthropic-messages/request-with-tool-results.json'), 'anthropic_messages', 'openai_responses');
    expect(body).toMatchObject({
      model: 'claude-haiku-4-5-20251001',
      max_output_tokens: 8192,
      temperature: 1,
      stream: true,
      tools: [{ type: 'function', name: 'pelican_name_generator', description: '', parameters: { properties: {}, type: 'object' } }],
    });
    expect(body.input).toEqual([
      { role: 'user', content: 'Two names for a pet pelican' },
      { role: 'assistant', content: ' ' },
      { type: 'function_call', call_id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', arguments: '{}' },
      { type: 'function_call', call_id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', arguments: '{}' },
      { type: 'function_call_output', call_id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', output: 'Charles' },
      { type: 'function_call_output', call_id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', output: 'Sammy' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('an OpenAI Chat request with a system prompt and an image → instructions and input_image', () => {
    const { body } = convertRequest(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
            ],
          },
        ],
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
        max_completion_tokens: 100,
        reasoning_effort: 'low',
      },
      'openai_chat',
      'openai_responses',
    );
    expect(body).toEqual({
      model: 'gpt-4o',
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', detail: 'low', image_url: 'data:image/png;base64,AAAA' },
          ],
        },
      ],
      max_output_tokens: 100,
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low' },
    });
  });

  it('response-reasoning-summary.json → anthropic_messages and openai_chat, and back', () => {
    const body = fixtureJson<Json>('openai-responses/response-reasoning-summary.json');
    const anthropic = convertResponse(body, 'openai_responses', 'anthropic_messages').body as Json;
    expect(anthropic.content.map((b: Json) => b.type)).toEqual(['thinking', 'text']);
    expect(anthropic.content[1].text).toBe(body.output[1].content[0].text);
    expect(anthropic.usage).toMatchObject({ input_tokens: 34, output_tokens: 226 });
    const chat = convertResponse(body, 'openai_responses', 'openai_chat').body as Json;
    expect(chat.choices[0].message.content).toBe(body.output[1].content[0].text);
    expect(chat.choices[0].message.reasoning_content).toBe(body.output[0].summary[0].text);
    expect(chat.usage).toMatchObject({ prompt_tokens: 34, completion_tokens: 226, completion_tokens_details: { reasoning_tokens: 59 } });

    const back = convertResponse(anthropic, 'anthropic_messages', 'openai_responses').body as Json;
    expect(back.output.map((i: Json) => i.type)).toEqual(['reasoning', 'message']);
    expect(back.output[1].content[0].text).toBe(body.output[1].content[0].text);
    expect(back.status).toBe('completed');
  });

  it('anthropic response-tool-use-parallel.json → openai_responses: function calls and completed status', () => {
    const anthropic = fixtureJson<Json>('anthropic-messages/response-tool-use-parallel.json');
    const out = convertResponse(anthropic, 'anthropic_messages', 'openai_responses', { model: 'claude' }).body as Json;
    const calls = anthropic.content.filter((b: Json) => b.type === 'tool_use');
    expect(out.output.filter((i: Json) => i.type === 'function_call').map((i: Json) => [i.call_id, i.name, JSON.parse(i.arguments)])).toEqual(
      calls.map((b: Json) => [b.id, b.name, b.input]),
    );
    expect(out).toMatchObject({ model: 'claude', status: 'completed', incomplete_details: null, object: 'response' });
  });
});
