import { describe, expect, it } from 'vitest';
import { codecTable, codecOf, convertRequestWith, convertResponseWith, GatewayError } from '@tollgate/codecs/base';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { anthropicVertexCodec } from '@tollgate/codecs/anthropic-vertex';
import { geminiCodec } from '@tollgate/codecs/gemini';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { openaiResponsesCodec } from '@tollgate/codecs/openai-responses';
import { bedrockConverseCodec } from '@tollgate/codecs/bedrock-converse';
import { codecs, convertRequest } from '../index.js';

describe('per-format entries', () => {
  it('each subpath exports the very codec of the full table', () => {
    expect(openaiChatCodec).toBe(codecs.openai_chat);
    expect(openaiResponsesCodec).toBe(codecs.openai_responses);
    expect(anthropicMessagesCodec).toBe(codecs.anthropic_messages);
    expect(anthropicVertexCodec).toBe(codecs.anthropic_vertex);
    expect(geminiCodec).toBe(codecs.gemini_generate_content);
    expect(bedrockConverseCodec).toBe(codecs.bedrock_converse);
  });

  it('converts between two codecs passed as objects, as the format-name functions do', () => {
    const body = {
      model: 'gpt-4o',
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    };
    const viaObjects = convertRequestWith(body, openaiChatCodec, anthropicMessagesCodec);
    expect(viaObjects).toEqual(convertRequest(body, 'openai_chat', 'anthropic_messages'));
    expect(viaObjects.body).toMatchObject({ model: 'gpt-4o', system: 'Be brief.', max_tokens: 100, messages: [{ role: 'user' }] });
    const answer = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 1 },
    };
    const back = convertResponseWith(answer, anthropicMessagesCodec, openaiChatCodec, { model: 'gpt-4o' });
    expect(back.body).toMatchObject({ object: 'chat.completion', model: 'gpt-4o', choices: [{ message: { content: 'Hello' }, finish_reason: 'stop' }] });
  });

  it('a codec table holds what it was given; a missing format is a canonical unsupported_feature error', () => {
    const table = codecTable([openaiChatCodec, anthropicMessagesCodec, openaiChatCodec]);
    expect(Object.keys(table).sort()).toEqual(['anthropic_messages', 'openai_chat']);
    expect(codecOf(table, 'openai_chat')).toBe(openaiChatCodec);
    let error: unknown;
    try {
      codecOf(table, 'gemini_generate_content');
    } catch (e) {
      error = e;
    }
    expect(GatewayError.isInstance(error) && error.code).toBe('unsupported_feature');
    expect(() => codecTable([openaiChatCodec, { ...openaiChatCodec }])).toThrow(/two different codecs for the wire format openai_chat/i);
  });
});
