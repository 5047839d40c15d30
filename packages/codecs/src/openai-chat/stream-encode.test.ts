import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../../test/support/fixtures.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { emptyUsage } from '../ir/usage.js';
import { createSseReader, type SseMessage } from '../sse/parse.js';
import { encodeEvents, payloads } from './__tests__/harness.js';
import { identityFilter } from './index.js';

const usage = { ...emptyUsage(), input: 120, cacheRead: 400, cacheWrite: 30, output: 57, reasoning: 7 };
const events: StreamEvent[] = [
  { type: 'message_start', id: 'msg_01', model: 'claude-sonnet-4-5', created: 1700000000 },
  { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
  { type: 'reasoning_delta', index: 0, text: 'Thinking' },
  { type: 'signature', index: 0, signature: 'sig', issuer: 'anthropic' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { kind: 'text' } },
  { type: 'text_delta', index: 1, text: 'Hello' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, delta: '{"city":' },
  { type: 'tool_args_delta', index: 2, delta: '"Paris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_b', name: 'time' } },
  { type: 'tool_args_delta', index: 3, delta: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'usage', usage },
  { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' } },
  { type: 'message_stop' },
];

const envelope = { id: 'chatcmpl-msg_01', object: 'chat.completion.chunk', created: 1700000000, model: 'claude-sonnet' };
const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] });

describe('openai_chat stream encoder', () => {
  it('writes the chunks an OpenAI client expects', () => {
    const out = encodeEvents(events, { model: 'claude-sonnet' });
    expect(payloads(out)).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ reasoning_content: 'Thinking' }),
      choice({ content: 'Hello' }),
      choice({ tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      choice({ tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'time', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      choice({}, 'tool_calls'),
      {
        ...envelope,
        choices: [],
        usage: {
          prompt_tokens: 550,
          completion_tokens: 57,
          total_tokens: 607,
          prompt_tokens_details: { cached_tokens: 400, cache_write_tokens: 30 },
          completion_tokens_details: { reasoning_tokens: 7 },
        },
      },
      '[DONE]',
    ]);
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('leaves out the usage chunk when the client did not ask for it', () => {
    const out = payloads(encodeEvents(events, { model: 'claude-sonnet', includeUsage: false }));
    expect(out.some((p) => typeof p === 'object' && 'usage' in (p as object))).toBe(false);
    expect(out.at(-1)).toBe('[DONE]');
  });

  it('keeps the upstream model and a chatcmpl id, and writes refusals as refusal deltas', () => {
    const out = payloads(
      encodeEvents([
        { type: 'message_start', id: 'chatcmpl-abc', model: 'gpt-4o' },
        { type: 'block_start', index: 0, block: { kind: 'refusal' } },
        { type: 'text_delta', index: 0, text: 'I cannot' },
        { type: 'block_stop', index: 0 },
        { type: 'message_stop' },
      ]),
    ) as Array<Record<string, unknown>>;
    expect(out[0]).toMatchObject({ id: 'chatcmpl-abc', model: 'gpt-4o', created: 0 });
    expect(out[1]).toMatchObject({ choices: [{ delta: { refusal: 'I cannot' } }] });
    // A message_stop without a finish still gives the client a finish_reason.
    expect(out[2]).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
    expect(out[3]).toBe('[DONE]');
  });

  it('writes an error chunk and nothing after it', () => {
    const out = encodeEvents([
      events[0]!,
      events[5]!,
      events[6]!,
      { type: 'error', error: errorInfo('overloaded', 'The upstream is overloaded.') },
      events[6]!,
      { type: 'message_stop' },
    ]);
    const chunks = payloads(out);
    expect(chunks).toHaveLength(3);
    expect(chunks[2]).toEqual({ error: { message: 'The upstream is overloaded.', type: 'server_error', param: null, code: 'overloaded' } });
  });

  it('reports a stream that ended without message_stop as stream_incomplete', () => {
    const chunks = payloads(encodeEvents(events.slice(0, 7)));
    expect(chunks.at(-1)).toMatchObject({ error: { type: 'server_error', code: 'stream_incomplete' } });
    expect(chunks).not.toContain('[DONE]');
  });

  it('writes nothing more at end() after [DONE]', () => {
    expect(encodeEvents(events, {}, true)).toBe(encodeEvents(events, {}, false));
  });
});

function messagesOf(text: string): SseMessage[] {
  const out: SseMessage[] = [];
  const reader = createSseReader(
    (m) => out.push(m),
    () => {},
  );
  reader.feed(text);
  reader.end();
  return out;
}

describe('openai_chat identity filter', () => {
  const usageOnly: SseMessage = { data: '{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}' };
  const withChoices: SseMessage = {
    data: '{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
  };

  it('passes everything when the client asked for usage', () => {
    expect(identityFilter(usageOnly, { includeUsage: true })).toBe(usageOnly);
    expect(identityFilter(withChoices, { includeUsage: true })).toBe(withChoices);
  });

  it('drops the usage-only chunk and strips usage from a chunk with choices', () => {
    expect(identityFilter(usageOnly, { includeUsage: false })).toBeNull();
    const stripped = identityFilter(withChoices, { includeUsage: false });
    expect(JSON.parse(stripped!.data)).toEqual({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  });

  it('returns every other message as the same object', () => {
    const fixture = messagesOf(fixtureText('openai-chat/stream-tool-call-include-usage.sse'));
    const kept = fixture.map((m) => identityFilter(m, { includeUsage: false }));
    // The usage-only chunk is gone; every other chunk (with `"usage":null`) is untouched.
    expect(kept.filter((m) => m === null)).toHaveLength(1);
    expect(kept[kept.length - 2]).toBeNull();
    kept.forEach((m, i) => {
      if (m !== null) expect(m).toBe(fixture[i]);
    });
    for (const odd of [{ data: '[DONE]' }, { data: 'not json "usage"' }, { data: '{"usage":null,"choices":[]}' }]) {
      expect(identityFilter(odd, { includeUsage: false })).toBe(odd);
    }
  });
});
