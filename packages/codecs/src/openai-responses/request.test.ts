import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { GatewayError } from '../errors/gateway-error.js';
import { openaiResponsesCodec as codec, statefulFeatures } from './index.js';

/** The re-serialised fixtures spell absent values as null and say `stream: false`; both mean "not set". */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => v !== null && !(k === 'stream' && v === false))
      .map(([k, v]) => [k, normalise(v)]),
  );
}

const decode = (body: unknown) => codec.decodeRequest(body);

describe('openai_responses request fixtures', () => {
  it('request-with-tools.json: user input, a flat function tool, tool_choice auto', () => {
    const { request, warnings, unclassified } = decode(fixtureJson('openai-responses/request-with-tools.json'));
    expect(request).toEqual({
      model: 'gpt-4o',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of PotatoLand?' }] }],
      tools: [
        {
          type: 'function',
          name: 'get_capital',
          parameters: { additionalProperties: false, properties: { country: { type: 'string' } }, required: ['country'], type: 'object' },
          strict: true,
        },
      ],
      toolChoice: { type: 'auto' },
      stream: false,
    });
    expect(warnings).toEqual([]);
    expect(unclassified).toEqual([]);
  });

  it('request-with-function-call-output.json: the function_call and its output become an assistant tool call and a tool message', () => {
    const { request } = decode(fixtureJson('openai-responses/request-with-function-call-output.json'));
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the capital of PotatoLand?' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_YfwRsW8sUxDKipwyhWTzOXCA', name: 'get_capital', arguments: '{"country":"PotatoLand"}' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_YfwRsW8sUxDKipwyhWTzOXCA', content: [{ type: 'text', text: 'Potato City' }] }] },
    ]);
  });

  it('request-stream-function-call.json: reasoning effort, service tier, stream, include as a vendor field, nothing stateful', () => {
    const { request } = decode(fixtureJson('openai-responses/request-stream-function-call.json'));
    expect(request).toMatchObject({
      model: 'gpt-5',
      stream: true,
      includeUsage: true,
      reasoning: { effort: 'low' },
      serviceTier: 'flex',
      toolChoice: { type: 'required' },
      vendor: { format: 'openai_responses', fields: { include: ['reasoning.encrypted_content'] } },
    });
    expect(request.tools.map((t) => [t.name, t.description, t.strict])).toEqual([['final_result', 'The final response which ends this conversation', true]]);
    expect(statefulFeatures(request)).toEqual([]); // previous_response_id: null is not a feature
  });

  it('request-stream-reasoning-summary.json: reasoning effort and summary mode', () => {
    const { request } = decode(fixtureJson('openai-responses/request-stream-reasoning-summary.json'));
    expect(request.reasoning).toEqual({ effort: 'high', summary: 'detailed' });
    expect(request.model).toBe('o3-mini');
  });

  it.each(fixtureFiles('openai-responses', '.json').filter((f) => f.includes('request-')))('%s: wire → IR → wire gives the same body', (file) => {
    const body = fixtureJson(file);
    const decoded = decode(body);
    expect(normalise(codec.encodeRequest(decoded.request).body)).toEqual(normalise(body));
  });
});

describe('openai_responses input items', () => {
  it('a string input is one user message; instructions and system/developer messages are the system prompt', () => {
    expect(decode({ model: 'm', input: 'hi' }).request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const { request, warnings } = decode({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Use metric units.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { role: 'system', content: [{ type: 'input_text', text: 'Late rule.' }] },
      ],
    });
    expect(request.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use metric units.' },
      { type: 'text', text: 'Late rule.' },
    ]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'lossy_conversion', path: 'input[2]' })]);
    // Encoded back, the system prompt is the instructions.
    expect(codec.encodeRequest(request).body.instructions).toBe('Be brief.\n\nUse metric units.\n\nLate rule.');
  });

  it('images, files and audio', () => {
    const { request } = decode({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' },
            { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/', detail: 'auto' },
            { type: 'input_image', file_id: 'file-img' },
            { type: 'input_file', file_id: 'file-doc', filename: 'a.pdf' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBER', filename: 'b.pdf' },
            { type: 'input_file', file_url: 'https://example.com/c.pdf' },
            { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
          ],
        },
      ],
    });
    expect(request.messages[0]!.content).toEqual([
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'high' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' }, detail: 'auto' },
      { type: 'image', source: { kind: 'file_id', fileId: 'file-img' } },
      { type: 'file', source: { kind: 'file_id', fileId: 'file-doc' }, filename: 'a.pdf' },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' }, filename: 'b.pdf' },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/c.pdf' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'audio/wav', data: 'UklG' } },
    ]);
  });

  it('assistant text, refusals, reasoning items and function calls in a row form one assistant message', () => {
    const input = [
      { role: 'user', content: 'q' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [
          { type: 'summary_text', text: 'first' },
          { type: 'summary_text', text: 'second' },
        ],
        encrypted_content: 'gAAAA',
      },
      {
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Let me look.' },
          { type: 'refusal', refusal: 'Not that.' },
        ],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'lookup', arguments: '{"q":1}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'found' },
          { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' },
        ],
      },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { role: 'assistant', content: 'Done.' },
    ];
    const { request } = decode({ model: 'gpt-5', input });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'first', itemId: 'rs_1', encryptedContent: 'gAAAA', issuer: 'openai' },
          { type: 'reasoning', text: 'second', itemId: 'rs_1', issuer: 'openai' },
          { type: 'text', text: 'Let me look.' },
          { type: 'refusal', text: 'Not that.' },
          { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: '{"q":1}', itemId: 'fc_1' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'call_1',
            content: [
              { type: 'text', text: 'found' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'low' },
            ],
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', itemId: 'rs_2', issuer: 'openai' },
          { type: 'text', text: 'Done.' },
        ],
      },
    ]);
    // And back, item for item.
    expect(codec.encodeRequest(request).body.input).toEqual([
      { role: 'user', content: 'q' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [
          { type: 'summary_text', text: 'first' },
          { type: 'summary_text', text: 'second' },
        ],
        encrypted_content: 'gAAAA',
      },
      {
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Let me look.' },
          { type: 'refusal', refusal: 'Not that.' },
        ],
      },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":1}', id: 'fc_1' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'found' },
          { type: 'input_image', detail: 'low', image_url: 'https://x/y.png' },
        ],
      },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it.each([
    [{ input: 5 }, 'input'],
    [{ input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ input: [{ type: 'function_call', name: 'f' }] }, 'input[0]'],
    [{ input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    [{ input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0]'],
    [{ input: [{ content: 'no role, no type' }] }, 'input[0].type'],
    [{ input: [], tools: {} }, 'tools'],
    [{ input: [], tools: [{ type: 'function' }] }, 'tools[0].name'],
    [{ input: [], temperature: 'hot' }, 'temperature'],
    [{ input: [], max_output_tokens: 1.5 }, 'max_output_tokens'],
    [{ input: [], text: { format: { type: 'yaml' } } }, 'text.format.type'],
    [{ input: [], tool_choice: 'sometimes' }, 'tool_choice'],
    [{ input: [], metadata: { a: 1 } }, 'metadata.a'],
    [[1], 'body'],
  ])('an invalid request is a canonical invalid_request naming %j', (body, param) => {
    let caught: unknown;
    try {
      decode(body);
    } catch (error) {
      caught = error;
    }
    expect(GatewayError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'invalid_request', status: 400, param });
  });
});
