/**
 * Gemini thought signatures survive a round trip through clients that only echo tool-call ids:
 * Gemini response → another format (id with the signature folded in) → that client's follow-up
 * request → Gemini request with the same signature on the functionCall part.
 */
import { describe, expect, it } from 'vitest';
import { fixtureJson, fixtureText } from '../../../../test/support/fixtures.js';
import { convertRequest, convertResponse } from '../convert.js';
import { convertStream } from '../convert-stream.js';

type Json = Record<string, any>;

const response = fixtureJson<Json>('gemini/response-function-call-thought-signature.json');
const signature: string = response['candidates'][0]['content']['parts'][0]['thoughtSignature'];

/** The model turn and the function response of a converted Gemini request. */
function geminiTurns(body: Json) {
  const contents = body['contents'] as Json[];
  const model = contents.find((c) => c['role'] === 'model')!;
  const results = contents.find((c) => c['parts'].some((p: Json) => p['functionResponse'] !== undefined))!;
  return { call: model['parts'][0], result: results['parts'][0]['functionResponse'] };
}

describe('thought signatures across formats', () => {
  it('Gemini → openai_chat client → follow-up → Gemini carries the same thoughtSignature', () => {
    const shown = convertResponse(response, 'gemini_generate_content', 'openai_chat').body as Json;
    const toolCall = shown['choices'][0]['message']['tool_calls'][0];
    expect(toolCall['id']).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(toolCall['id']).not.toBe('gcall_g5YoaezOBeyrqtsPwYqL2Q8_0');

    // What the openai SDK user sends next: the assistant message as received, and the tool result.
    const followUp = {
      model: 'gemini-via-gateway',
      messages: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: null, tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: toolCall['id'], content: 'Paris' },
      ],
      tools: [{ type: 'function', function: { name: 'get_capital', parameters: { type: 'object', properties: { country: { type: 'string' } } } } }],
    };
    const converted = convertRequest(followUp, 'openai_chat', 'gemini_generate_content');
    const { call, result } = geminiTurns(converted.body);
    expect(call).toEqual({ functionCall: { name: 'get_capital', args: { country: 'France' } }, thoughtSignature: signature });
    // The id was made up by the gateway (Gemini sent none): it is left out, Gemini matches by order.
    expect(result).toEqual({ name: 'get_capital', response: { output: 'Paris' } });
    expect(converted.warnings.filter((w) => w.code === 'signature_dropped')).toEqual([]);
  });

  it('Gemini → anthropic_messages client → follow-up → Gemini carries the same thoughtSignature', () => {
    const shown = convertResponse(response, 'gemini_generate_content', 'anthropic_messages').body as Json;
    const toolUse = shown['content'][0];
    expect(toolUse['type']).toBe('tool_use');
    expect(toolUse['id']).toMatch(/^[a-zA-Z0-9_-]+$/);
    const followUp = {
      model: 'gemini-via-gateway',
      max_tokens: 1000,
      messages: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: shown['content'] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse['id'], content: 'Paris' }] },
      ],
    };
    const { call, result } = geminiTurns(convertRequest(followUp, 'anthropic_messages', 'gemini_generate_content').body);
    expect(call['thoughtSignature']).toBe(signature);
    expect(call['functionCall']).toEqual({ name: 'get_capital', args: { country: 'France' } });
    expect(result['name']).toBe('get_capital');
  });

  it('Gemini → openai_responses client → follow-up → Gemini carries the same thoughtSignature', async () => {
    const shown = convertResponse(response, 'gemini_generate_content', 'openai_responses').body as Json;
    const call = (shown['output'] as Json[]).find((i) => i['type'] === 'function_call')!;
    expect(call['call_id']).toMatch(/^[A-Za-z0-9_-]+$/);
    const followUp = {
      model: 'gemini-via-gateway',
      input: [
        { role: 'user', content: 'What is the capital of France?' },
        { type: 'function_call', call_id: call['call_id'], name: call['name'], arguments: call['arguments'] },
        { type: 'function_call_output', call_id: call['call_id'], output: 'Paris' },
      ],
    };
    const turns = geminiTurns(convertRequest(followUp, 'openai_responses', 'gemini_generate_content').body);
    expect(turns.call).toEqual({ functionCall: { name: 'get_capital', args: { country: 'France' } }, thoughtSignature: signature });
    expect(turns.result).toEqual({ name: 'get_capital', response: { output: 'Paris' } });
    // Streamed, the call id carries it too.
    const raw = fixtureText('gemini/stream-function-call-thought-signature.sse');
    const text = await new Response(convertStream(new Response(raw).body!, 'gemini_generate_content', 'openai_responses')).text();
    const streamed = /"call_id":"([^"]+)"/.exec(text)![1]!;
    expect(streamed).toMatch(/__ts_/);
    expect(
      geminiTurns(
        convertRequest(
          {
            model: 'g',
            input: [
              { role: 'user', content: 'q' },
              { type: 'function_call', call_id: streamed, name: 'get_country', arguments: '{}' },
              { type: 'function_call_output', call_id: streamed, output: 'Mexico' },
            ],
          },
          'openai_responses',
          'gemini_generate_content',
        ).body as Json,
      ).call['thoughtSignature'],
    ).toBe(/"thoughtSignature": "([^"]+)"/.exec(raw)![1]);
  });

  it("a streamed call shown to an openai client round-trips too, and Gemini's own ids are kept", async () => {
    const raw = fixtureText('gemini/stream-function-call-thought-signature.sse');
    const streamSig = /"thoughtSignature": "([^"]+)"/.exec(raw)![1]!;
    // Give the call an id, as the Gemini API may.
    const withId = raw.replace('"functionCall": {"name": "get_country"', '"functionCall": {"id": "fc-123", "name": "get_country"');
    const source = new Response(withId).body!;
    const text = await new Response(convertStream(source, 'gemini_generate_content', 'openai_chat')).text();
    const id = /"tool_calls":\[\{"index":0,"id":"([^"]+)"/.exec(text)![1]!;
    expect(id.startsWith('fc-123__ts_')).toBe(true);
    const followUp = {
      model: 'g',
      messages: [
        { role: 'user', content: 'Where am I?' },
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_country', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: id, content: '{"return_value":"Mexico"}' },
      ],
    };
    const { call, result } = geminiTurns(convertRequest(followUp, 'openai_chat', 'gemini_generate_content').body);
    expect(call).toEqual({ functionCall: { id: 'fc-123', name: 'get_country', args: {} }, thoughtSignature: streamSig });
    expect(result).toEqual({ id: 'fc-123', name: 'get_country', response: { return_value: 'Mexico' } });
  });

  it('the same follow-up sent to Anthropic drops the Google signature with a warning, ids stay consistent', () => {
    const toolCall = (convertResponse(response, 'gemini_generate_content', 'openai_chat').body as Json)['choices'][0]['message']['tool_calls'][0];
    const converted = convertRequest(
      {
        model: 'claude',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [toolCall] },
          { role: 'tool', tool_call_id: toolCall['id'], content: 'Paris' },
        ],
      },
      'openai_chat',
      'anthropic_messages',
    );
    const body = converted.body as Json;
    const use = body['messages'][1]['content'][0];
    const result = body['messages'][2]['content'][0];
    expect(use['id']).toBe('gcall_g5YoaezOBeyrqtsPwYqL2Q8_0');
    expect(result['tool_use_id']).toBe(use['id']);
    expect(JSON.stringify(body)).not.toContain(signature.slice(0, 40));
    expect(converted.warnings).toContainEqual(expect.objectContaining({ code: 'signature_dropped' }));
  });

  it("a Gemini client's own history keeps its signatures untouched (no folding on the Gemini side)", () => {
    const body = fixtureJson<Json>('gemini/request-function-response.json');
    const again = convertRequest(body, 'gemini_generate_content', 'gemini_generate_content').body as Json;
    expect(again['contents'][1]['parts'][0]).toEqual(body['contents'][1]['parts'][0]);
  });
});
