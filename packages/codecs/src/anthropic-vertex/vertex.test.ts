import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson, fixtureText } from '../../../../test/support/fixtures.js';
import { anthropicMessagesCodec } from '../anthropic-messages/index.js';
import { convertRequest, convertResponse } from '../convert.js';
import { convertStream } from '../convert-stream.js';
import { codecs } from '../registry.js';
import { anthropicVertexCodec as codec, fromVertexEnvelope, toVertexEnvelope, VERTEX_ANTHROPIC_VERSION } from './index.js';

type Json = Record<string, any>;

const thinkingRequest = fixtureJson<Json>('anthropic-messages/request-stream-thinking.json');

describe('anthropic_vertex: the raw envelope', () => {
  it('toVertexEnvelope drops model, adds anthropic_version, and leaves content objects untouched', () => {
    const body: Json = {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'x', signature: 'SIG==' },
            { type: 'text', text: 'yo' },
          ],
        },
      ],
      thinking: { type: 'enabled', budget_tokens: 1024 },
    };
    const out = toVertexEnvelope(body);
    expect(out).toEqual({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'model')) });
    expect(out['anthropic_version']).toBe('vertex-2023-10-16');
    expect(out['messages']).toBe(body['messages']); // the same objects: bytes in content are not re-made
    expect(out['system']).toBe(body['system']);
    expect(body['model']).toBe('claude-sonnet-4-5'); // the input is not mutated
    expect(fromVertexEnvelope(out, 'claude-sonnet-4-5')).toEqual(body);
    expect(toVertexEnvelope({ ...body, anthropic_version: 'vertex-2099-01-01' })['anthropic_version']).toBe('vertex-2099-01-01');
  });

  it.each(fixtureFiles('anthropic-messages', '.json').filter((f) => f.includes('/request-')))(
    '%s: encodeRequest is the anthropic body in the envelope',
    (file) => {
      const body = fixtureJson<Json>(file);
      const decoded = anthropicMessagesCodec.decodeRequest(body);
      const anthropic = anthropicMessagesCodec.encodeRequest(decoded.request).body;
      const vertex = codec.encodeRequest(decoded.request).body;
      expect(vertex).toEqual(toVertexEnvelope(anthropic));
      expect(vertex['model']).toBeUndefined();
      // And back: a Vertex body (model from the URL) decodes to the same request.
      const again = codec.decodeRequest(vertex, { model: body['model'] });
      expect(again.unclassified).toEqual([]);
      expect(anthropicMessagesCodec.encodeRequest(again.request).body).toEqual(anthropic);
    },
  );

  it('thinking and cache_control survive a translation from anthropic_messages verbatim', () => {
    const result = convertRequest(thinkingRequest, 'anthropic_messages', 'anthropic_vertex');
    expect(result.body).toEqual(toVertexEnvelope(thinkingRequest));
    expect(result.warnings).toEqual([]);
  });

  it('an OpenAI client reaches Claude on Vertex', () => {
    const result = convertRequest(fixtureJson('openai-chat/request-with-tools.json'), 'openai_chat', 'anthropic_vertex');
    expect(result.body['anthropic_version']).toBe('vertex-2023-10-16');
    expect(result.body['model']).toBeUndefined();
    expect(result.body['tools']).toEqual(expect.any(Array));
  });

  it('knows its fields: every anthropic field but model, plus anthropic_version', () => {
    expect(codec.knownRequestFields).toContain('anthropic_version');
    expect(codec.knownRequestFields).not.toContain('model');
    expect(codecs.anthropic_vertex).toBe(codec);
    expect(codec.decodeRequest({ anthropic_version: 'vertex-2023-10-16', messages: [], max_tokens: 1, surprise: 1 }).unclassified).toEqual(['surprise']);
  });

  it("responses and streams are Anthropic's", async () => {
    const body = fixtureJson('anthropic-messages/response-thinking.json');
    expect(convertResponse(body, 'anthropic_vertex', 'anthropic_messages').body).toEqual(
      convertResponse(body, 'anthropic_messages', 'anthropic_messages').body,
    );
    const raw = fixtureText('anthropic-messages/stream-thinking-then-tool-use.sse');
    const viaVertex = await new Response(convertStream(new Response(raw).body!, 'anthropic_vertex', 'openai_chat')).text();
    const direct = await new Response(convertStream(new Response(raw).body!, 'anthropic_messages', 'openai_chat')).text();
    expect(viaVertex).toBe(direct);
  });

  it('decodes both error shapes Vertex returns', () => {
    expect(
      codec.decodeError(429, { error: { code: 429, message: 'Quota exceeded for aiplatform.googleapis.com', status: 'RESOURCE_EXHAUSTED' } }),
    ).toMatchObject({
      code: 'rate_limited',
      status: 429,
    });
    expect(codec.decodeError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toMatchObject({ code: 'overloaded' });
    expect(codec.decodeError(400, fixtureJson('anthropic-messages/error-400-invalid-request.json'))).toMatchObject({ code: 'invalid_request' });
    expect(codec.decodeError(403, '[{"error":{"code":403,"message":"Permission denied on project 42","status":"PERMISSION_DENIED"}}]')).toMatchObject({
      code: 'permission_denied',
    });
    expect(codec.renderError({ code: 'rate_limited', message: 'slow', status: 429 }).body).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow' },
    });
  });
});
