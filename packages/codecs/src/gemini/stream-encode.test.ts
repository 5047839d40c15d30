import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { assemble as assembleAnthropic } from '../anthropic-messages/__tests__/harness.js';
import { convertStream } from '../convert-stream.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { WireFormat } from '../ir/wire-format.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { emptyUsage } from '../ir/usage.js';
import { unfoldSignature } from '../shared/tool-call-id.js';
import { assemble, encodeEvents, parseChunks, reencodeText } from './__tests__/harness.js';

const start: StreamEvent = { type: 'message_start', id: 'resp_1', model: 'gemini-2.5-flash' };

async function convert(text: string, from: WireFormat, to: WireFormat, options: { model?: string; includeUsage?: boolean } = {}): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 37) controller.enqueue(bytes.subarray(i, i + 37));
      controller.close();
    },
  });
  return new Response(convertStream(source, from, to, options)).text();
}

/** What an openai SDK client assembles from a Chat Completions stream. */
function assembleOpenai(text: string) {
  const out = {
    content: '',
    reasoning: '',
    toolCalls: [] as Array<{ id: string; name: string; arguments: string }>,
    finish: undefined as unknown,
    usage: undefined as unknown,
    done: false,
  };
  for (const event of text.split('\n\n').filter((e) => e.startsWith('data: '))) {
    const data = event.slice(6);
    if (data === '[DONE]') {
      out.done = true;
      continue;
    }
    const chunk = JSON.parse(data);
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.delta?.content) out.content += choice.delta.content;
      if (choice.delta?.reasoning_content) out.reasoning += choice.delta.reasoning_content;
      for (const call of choice.delta?.tool_calls ?? []) {
        const slot = (out.toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name = call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
      if (choice.finish_reason) out.finish = choice.finish_reason;
    }
  }
  return out;
}

describe('gemini_generate_content stream encoding', () => {
  it('one data chunk per delta, CRLF framed; finishReason and usage on the last chunk', () => {
    const out = encodeEvents([
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', issuer: 'google' } },
      { type: 'signature', index: 0, signature: 'U0lH', issuer: 'google' },
      { type: 'reasoning_delta', index: 0, text: 'hmm' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'Hel' },
      { type: 'text_delta', index: 1, text: 'lo' },
      { type: 'block_stop', index: 1 },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } },
      { type: 'usage', usage: { ...emptyUsage(), input: 5, output: 9, reasoning: 4 } },
      { type: 'message_stop' },
    ]);
    const chunks = parseChunks(out);
    expect(chunks.map((c) => (c['candidates'] as any)[0].content.parts)).toEqual([
      [{ text: 'hmm', thought: true, thoughtSignature: 'U0lH' }],
      [{ text: 'Hel' }],
      [{ text: 'lo' }],
      [{ text: '' }],
    ]);
    expect(chunks.at(-1)).toEqual({
      candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, thoughtsTokenCount: 4, totalTokenCount: 14 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp_1',
    });
  });

  it('a function call is written whole when its block stops; arguments from deltas, id kept unless made up', () => {
    const out = encodeEvents([
      start,
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_1', name: 'get_weather' } },
      { type: 'tool_args_delta', index: 0, delta: '{"city":' },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'gcall_r_0', name: 'noop', thoughtSignature: 'c2ln' } },
      { type: 'tool_args_delta', index: 0, delta: '"Paris"}' },
      { type: 'block_stop', index: 0 },
      { type: 'block_stop', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' } },
      { type: 'message_stop' },
    ]);
    expect(assemble(out)).toMatchObject({
      functionCalls: [
        { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } },
        { name: 'noop', args: {}, thoughtSignature: 'c2ln' },
      ],
      finishReason: 'STOP',
    });
    expect(out).not.toContain('gcall_');
  });

  it("drops other vendors' signatures and opaque reasoning", () => {
    const out = encodeEvents([
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', issuer: 'anthropic' } },
      { type: 'reasoning_delta', index: 0, text: 'claude thinking' },
      { type: 'signature', index: 0, signature: 'ANTHROPIC-SIG', issuer: 'anthropic' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning', redactedData: 'REDACTED', issuer: 'anthropic' } },
      { type: 'block_stop', index: 1 },
      { type: 'message_stop' },
    ]);
    expect(out).not.toMatch(/ANTHROPIC-SIG|REDACTED/);
    expect(assemble(out).thoughts).toBe('claude thinking');
  });

  it('an error ends the stream as a bare, pretty-printed JSON error body; an end without message_stop is stream_incomplete', () => {
    const failed = encodeEvents([start, { type: 'error', error: errorInfo('rate_limited', 'Slow down', { retryAfterS: 3 }) }]);
    expect(failed.startsWith('{\n  "error": {\n    "code": 429,')).toBe(true);
    expect(failed.endsWith('}\n')).toBe(true);
    expect(parseChunks(failed)).toEqual([
      {
        error: {
          code: 429,
          message: 'Slow down',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }],
        },
      },
    ]);
    const cut = encodeEvents([start, { type: 'block_start', index: 0, block: { kind: 'text' } }, { type: 'text_delta', index: 0, text: 'par' }]);
    expect(parseChunks(cut).at(-1)).toEqual({ error: { code: 502, message: expect.any(String), status: 'INTERNAL' } });
  });

  it('the bare error body travels as a chunk of its own, even when the upstream sent everything at once', async () => {
    const raw = fixtureText('anthropic-messages/stream-error-overloaded-midstream.sse');
    const body = new Response(raw).body!;
    const reader = convertStream(body, 'anthropic_messages', 'gemini_generate_content').getReader();
    const pieces: string[] = [];
    const text = new TextDecoder();
    for (let r = await reader.read(); !r.done; r = await reader.read()) pieces.push(text.decode(r.value));
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.at(-1)!)).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
    expect(pieces.slice(0, -1).join('')).toMatch(/^data: .*\r\n\r\n$/s);
  });

  it.each(fixtureFiles('gemini', '.sse'))('%s re-encodes to what a client sees in the original', (file) => {
    const raw = fixtureText(file);
    // Token details (modality breakdown, service tier) have no place in canonical stream events.
    const counts = (a: ReturnType<typeof assemble>) => {
      const u = a.usageMetadata ?? {};
      const kept = ['promptTokenCount', 'cachedContentTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'totalTokenCount'];
      return { ...a, usageMetadata: Object.fromEntries(Object.entries(u).filter(([k]) => kept.includes(k))) };
    };
    const original = counts(assemble(raw));
    const again = reencodeText(raw);
    expect(assemble(again)).toEqual(original);
    expect(reencodeText(again)).toBe(again); // a fixed point after one pass
  });
});

describe('cross-format streams', () => {
  it('Gemini thoughts and text → openai_chat', async () => {
    const out = assembleOpenai(await convert(fixtureText('gemini/stream-thought-parts.sse'), 'gemini_generate_content', 'openai_chat'));
    expect(out.done).toBe(true);
    expect(out.reasoning).toMatch(/^\*\*Clarifying User Goals\*\*/);
    expect(out.content).toMatch(/^This is a great ques/);
    expect(out.finish).toBe('stop');
    expect(out.usage).toMatchObject({ prompt_tokens: 34, completion_tokens: 469 + 787, completion_tokens_details: { reasoning_tokens: 787 } });
  });

  it('a Gemini function call with a thought signature → openai_chat: the id carries the signature', async () => {
    const raw = fixtureText('gemini/stream-function-call-thought-signature.sse');
    const signature = /"thoughtSignature": "([^"]+)"/.exec(raw)![1]!;
    const out = assembleOpenai(await convert(raw, 'gemini_generate_content', 'openai_chat'));
    expect(out.finish).toBe('tool_calls');
    expect(out.toolCalls).toHaveLength(1);
    expect(out.toolCalls[0]).toMatchObject({ name: 'get_country', arguments: '{}' });
    expect(unfoldSignature(out.toolCalls[0]!.id)).toEqual({ id: 'gcall_QUVVadTSNJ6-qtsPvN7J8Q0_0', thoughtSignature: signature });
  });

  it('Gemini → anthropic_messages, as the Anthropic SDK assembles it', async () => {
    const text = assembleAnthropic(await convert(fixtureText('gemini/stream-text.sse'), 'gemini_generate_content', 'anthropic_messages'));
    expect(text.content).toEqual([{ type: 'text', text: Array.from({ length: 30 }, (_, i) => i + 1).join('\n') }]);
    expect(text.stop_reason).toBe('end_turn');
    expect(text.usage).toMatchObject({ input_tokens: 18, output_tokens: 115 });
    const call = assembleAnthropic(
      await convert(fixtureText('gemini/stream-function-call-thought-signature.sse'), 'gemini_generate_content', 'anthropic_messages'),
    );
    expect(call.stop_reason).toBe('tool_use');
    expect(call.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^gcall_[A-Za-z0-9_-]+__ts_[A-Za-z0-9_-]+$/), name: 'get_country', input: {} },
    ]);
    const thoughts = assembleAnthropic(await convert(fixtureText('gemini/stream-thought-parts.sse'), 'gemini_generate_content', 'anthropic_messages'));
    expect(thoughts.content.map((b) => b['type'])).toEqual(['thinking', 'text']);
    expect(thoughts.content[0]!['signature']).toBe(''); // a Google signature is not an Anthropic one
  });

  it.each(fixtureFiles('anthropic-messages', '.sse'))('%s → gemini_generate_content', async (file) => {
    const raw = fixtureText(file);
    const source = assembleAnthropic(raw, { skipUnknownBlocks: true });
    const out = assemble(await convert(raw, 'anthropic_messages', 'gemini_generate_content'));
    if (source.error !== undefined) {
      expect(out.error).toMatchObject({ status: expect.any(String), code: expect.any(Number) });
      return;
    }
    expect(out.error).toBeUndefined();
    const text = source.content
      .filter((b) => b['type'] === 'text')
      .map((b) => b['text'])
      .join('');
    expect(out.text).toBe(text);
    const thinking = source.content
      .filter((b) => b['type'] === 'thinking')
      .map((b) => b['thinking'])
      .join('');
    expect(out.thoughts).toBe(thinking);
    const tools = source.content.filter((b) => b['type'] === 'tool_use');
    expect(out.functionCalls).toEqual(tools.map((t) => ({ id: t['id'], name: t['name'], args: t['input'] })));
    expect(out.signatures).toEqual([]); // Anthropic signatures never reach a Gemini client
    expect(out.finishReason).toBe(source.stop_reason === 'max_tokens' ? 'MAX_TOKENS' : 'STOP');
    const u = source.usage as Record<string, number>;
    expect(out.usageMetadata).toMatchObject({
      promptTokenCount: u['input_tokens']! + (u['cache_read_input_tokens'] ?? 0) + (u['cache_creation_input_tokens'] ?? 0),
    });
  });

  it.each(fixtureFiles('openai-chat', '.sse'))('%s → gemini_generate_content', async (file) => {
    const raw = fixtureText(file);
    const source = assembleOpenai(raw);
    const out = assemble(await convert(raw, 'openai_chat', 'gemini_generate_content'));
    expect(out.error).toBeUndefined();
    expect(out.text).toBe(source.content);
    expect(out.functionCalls).toEqual(source.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) })));
    expect(out.finishReason).toBe(source.finish === 'length' ? 'MAX_TOKENS' : 'STOP');
    if (source.usage !== undefined) {
      expect(out.usageMetadata).toMatchObject({ promptTokenCount: (source.usage as Record<string, number>)['prompt_tokens'] });
    }
  });
});
