import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { bedrockConverseCodec } from '@tollgate/codecs/bedrock-converse';
import { promptTokenBound } from './sizing.js';

const fixture = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8'));

describe('the prompt bound', () => {
  it('covers the recorded Bedrock request with tools: Bedrock billed 471 input tokens for it', () => {
    const raw = JSON.stringify(fixture('bedrock-converse/request-converse-stream-tools.json'));
    const { request } = bedrockConverseCodec.decodeRequest(JSON.parse(raw), { model: 'nova-micro' });
    expect(promptTokenBound(request, {}, new TextEncoder().encode(raw).byteLength)).toBeGreaterThanOrEqual(471);
  });

  it('adds the tool-use system prompt vendors bill once a request declares tools, however small the request', () => {
    // Anthropic bills ~350 tokens of tool-use system prompt on top of the request's own text.
    const body = {
      model: 'claude',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    };
    const raw = new TextEncoder().encode(JSON.stringify(body)).byteLength;
    const withTools = promptTokenBound(anthropicMessagesCodec.decodeRequest(body, {}).request, {}, raw);
    const { tools: _tools, ...plain } = body;
    const without = promptTokenBound(anthropicMessagesCodec.decodeRequest(plain, {}).request, {}, raw);
    expect(withTools - without).toBeGreaterThanOrEqual(1_024);
    expect(withTools).toBeGreaterThan(346 + raw);
    // Configurable like the other overheads.
    expect(promptTokenBound(anthropicMessagesCodec.decodeRequest(body, {}).request, { toolUseTokens: 0 }, raw)).toBe(without);
  });
});
