import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { openaiChatCodec as codec } from './index.js';

const decode = (body: unknown) => codec.decodeRequest(body);

describe('openai_chat request coverage', () => {
  // Every documented top-level Chat Completions request field, with a valid value.
  const documented: Record<string, unknown> = {
    messages: [{ role: 'user', content: 'hi' }],
    model: 'gpt-4o',
    audio: { voice: 'alloy', format: 'mp3' },
    frequency_penalty: 0,
    function_call: 'auto',
    functions: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
    logit_bias: { '1': 1 },
    logprobs: true,
    max_completion_tokens: 10,
    max_tokens: 10,
    metadata: { a: 'b' },
    modalities: ['text'],
    n: 1,
    parallel_tool_calls: false,
    prediction: { type: 'content', content: 'x' },
    presence_penalty: 0,
    prompt_cache_key: 'key',
    prompt_cache_retention: '24h',
    reasoning_effort: 'medium',
    response_format: { type: 'text' },
    safety_identifier: 'hash',
    seed: 1,
    service_tier: 'auto',
    stop: 'x',
    store: true,
    stream: true,
    stream_options: { include_usage: true },
    temperature: 1,
    tool_choice: 'auto',
    tools: [{ type: 'function', function: { name: 'g' } }],
    top_logprobs: 2,
    top_p: 1,
    user: 'u',
    verbosity: 'medium',
    web_search_options: { search_context_size: 'low' },
  };

  it('lists every documented field as known', () => {
    expect([...codec.knownRequestFields].sort()).toEqual(Object.keys(documented).sort());
  });

  it.each(Object.keys(documented))('%s is classified', (field) => {
    const body = { messages: documented.messages, [field]: documented[field] };
    expect(decode(body).unclassified).not.toContain(field);
  });

  it('classifies all of them at once', () => {
    expect(decode(documented).unclassified).toEqual([]);
  });
});

describe('openai_chat invalid requests', () => {
  const cases: Array<[string, unknown, string]> = [
    ['not an object', 'hello', 'body'],
    ['an array', [], 'body'],
    ['no messages', { model: 'm' }, 'messages'],
    ['messages not an array', { messages: 'hi' }, 'messages'],
    ['a message that is not an object', { messages: [1] }, 'messages[0]'],
    ['an unknown role', { messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    ['user content of the wrong type', { messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    ['a tool message without id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['temperature as a string', { messages: [], temperature: 'hot' }, 'temperature'],
    ['max_tokens not an integer', { messages: [], max_tokens: 1.5 }, 'max_tokens'],
    ['stream not a boolean', { messages: [], stream: 'yes' }, 'stream'],
    ['model not a string', { messages: [], model: 4 }, 'model'],
    ['bad tool_choice', { messages: [], tool_choice: 'sometimes' }, 'tool_choice'],
    ['bad response_format', { messages: [], response_format: { type: 'yaml' } }, 'response_format.type'],
    ['tools not an array', { messages: [], tools: {} }, 'tools'],
    ['a tool without name', { messages: [], tools: [{ type: 'function', function: {} }] }, 'tools[0].function.name'],
    ['metadata with a number', { messages: [], metadata: { a: 1 } }, 'metadata.a'],
    ['stop of numbers', { messages: [], stop: [1] }, 'stop'],
  ];

  it.each(cases)('%s → invalid_request', (_name, body, param) => {
    let thrown: unknown;
    try {
      decode(body);
    } catch (error) {
      thrown = error;
    }
    expect(GatewayError.isInstance(thrown)).toBe(true);
    const error = thrown as GatewayError;
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message.length).toBeGreaterThan(5);
  });
});
