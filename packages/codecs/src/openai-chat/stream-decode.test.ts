import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { assemble, bytes, decodeChunks, decodeText, payloads, sliceAt, reencodeChunks } from './__tests__/harness.js';

const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('');
const base = { id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe('openai_chat stream fixtures decode', () => {
  it('stream-text.sse: one text block, finish stop, no usage', () => {
    const text = fixtureText('openai-chat/stream-text.sse');
    const expected = payloads(text)
      .flatMap((p) => (typeof p === 'object' ? (p as { choices: Array<{ delta: { content?: string } }> }).choices : []))
      .map((c) => c.delta.content ?? '')
      .join('');
    const events = decodeText(text);
    const result = assemble(events);
    expect(result).toMatchObject({ id: 'chatcmpl-C4HqHBe4xca0k0EzsCnf1t6V3YFXp', model: 'gpt-5-nano-2025-08-07', created: 1755137933 });
    expect(result.text).toBe(expected);
    expect(result.text).toMatch(/^Hi there! How can I help today\?/);
    expect(result.text).toContain('you’re curious about.');
    expect(events.filter((e) => e.type === 'block_start')).toEqual([{ type: 'block_start', index: 0, block: { kind: 'text' } }]);
    expect(result).toMatchObject({ finish: 'stop', finishRaw: 'stop', end: 'message_stop', toolCalls: [] });
    expect(result.usage).toBeUndefined();
  });

  it('stream-include-usage-reasoning-tokens.sse: finish length and the usage chunk', () => {
    const result = assemble(decodeText(fixtureText('openai-chat/stream-include-usage-reasoning-tokens.sse')));
    expect(result).toMatchObject({ text: '', finish: 'length', finishRaw: 'length', end: 'message_stop' });
    expect(result.usage).toEqual({ input: 12, output: 100, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 100, measured: true });
  });

  it('stream-tool-call-include-usage.sse: one tool call assembled from five fragments', () => {
    const events = decodeText(fixtureText('openai-chat/stream-tool-call-include-usage.sse'));
    const result = assemble(events);
    expect(result.toolCalls).toEqual([{ id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', arguments: '{"country":"UK"}' }]);
    expect(events.filter((e) => e.type === 'tool_args_delta')).toHaveLength(5);
    expect(result).toMatchObject({ finish: 'tool_calls', end: 'message_stop' });
    expect(result.usage).toMatchObject({ input: 53, output: 15, cacheRead: 0, reasoning: 0 });
  });

  it('stream-tool-calls-parallel.sse: two tool calls keyed by index', () => {
    const result = assemble(decodeText(fixtureText('openai-chat/stream-tool-calls-parallel.sse')));
    expect(result.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ['call_JMW1whyEaYG438VE1OIflxA2', 'GetWeatherArgs'],
      ['call_DNYTawLBoN8fj3KN6qU9N1Ou', 'get_stock_price'],
    ]);
    expect(JSON.parse(result.toolCalls[0]!.arguments)).toEqual({ city: 'Edinburgh', country: 'GB', units: 'c' });
    expect(JSON.parse(result.toolCalls[1]!.arguments)).toEqual({ ticker: 'AAPL', exchange: 'NASDAQ' });
    expect(result.usage).toMatchObject({ input: 149, output: 60 });
    expect(result).toMatchObject({ finish: 'tool_calls', end: 'message_stop' });
  });

  it.each(fixtureFiles('openai-chat', '.sse'))('%s survives decode → encode → decode', (file) => {
    const original = bytes(fixtureText(file));
    const first = assemble(decodeChunks([original]));
    const translated = reencodeChunks([original]);
    const second = assemble(decodeChunks([bytes(translated)]));
    expect(second).toEqual({ ...first, id: first.id });
    expect(translated.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('openai_chat stream slicing', () => {
  // A stream with multi-byte UTF-8 (2, 3 and 4 bytes) and CRLF line endings.
  const unicode = sse(
    delta({ role: 'assistant', content: '' }),
    delta({ content: 'héllo — 日本語 ' }),
    delta({ content: '🙂🚀 done' }),
    delta({ tool_calls: [{ index: 0, id: 'call_ü', type: 'function', function: { name: 'say', arguments: '{"t":"ü' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '🙂"}' } }] }),
    delta({}, 'tool_calls'),
    { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    '[DONE]',
  ).replaceAll('\n', '\r\n');

  const inputs: Array<[string, Uint8Array]> = [
    ...fixtureFiles('openai-chat', '.sse').map((f): [string, Uint8Array] => [f, bytes(fixtureText(f))]),
    ['synthetic unicode CRLF stream', bytes(unicode)],
  ];

  it.each(inputs)('%s: any split gives the same output', (_name, data) => {
    const whole = reencodeChunks([data]);
    const events = decodeChunks([data]);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: data.length }), { maxLength: 40 }), (cuts) => {
        const slices = sliceAt(data, cuts);
        expect(reencodeChunks(slices)).toBe(whole);
        expect(decodeChunks(slices)).toEqual(events);
      }),
      { numRuns: 150 },
    );
  });

  it('byte-by-byte slicing of the unicode stream', () => {
    const data = bytes(unicode);
    const single = Array.from(data, (_, i) => data.subarray(i, i + 1));
    const result = assemble(decodeChunks(single));
    expect(result.text).toBe('héllo — 日本語 🙂🚀 done');
    expect(result.toolCalls).toEqual([{ id: 'call_ü', name: 'say', arguments: '{"t":"ü🙂"}' }]);
  });
});

describe('openai_chat stream deviations', () => {
  it('text and tool calls in one delta; usage on a chunk that still has choices', () => {
    const events = decodeText(
      sse(
        delta({
          role: 'assistant',
          content: 'Let me check. ',
          tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        }),
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
        '[DONE]',
      ),
    );
    const result = assemble(events);
    expect(result).toMatchObject({ text: 'Let me check. ', finish: 'tool_calls', end: 'message_stop' });
    expect(result.toolCalls).toEqual([{ id: 'c1', name: 'f', arguments: '{}' }]);
    expect(result.usage).toMatchObject({ input: 3, output: 2 });
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'block_start',
      'text_delta',
      'block_stop',
      'block_start',
      'tool_args_delta',
      'block_stop',
      'finish',
      'usage',
      'message_stop',
    ]);
  });

  it('empty choices, a choice without delta, and [DONE] without finish_reason', () => {
    const result = assemble(decodeText(sse({ ...base, choices: [] }, { ...base, choices: [{ index: 0 }] }, delta({ content: 'x' }), '[DONE]')));
    expect(result).toMatchObject({ text: 'x', finish: 'stop', finishRaw: null, end: 'message_stop' });
  });

  it('reasoning_content, then content, then refusal open separate blocks', () => {
    const events = decodeText(
      sse(
        delta({ reasoning_content: 'think ' }),
        delta({ reasoning: 'more' }),
        delta({ content: 'answer' }),
        delta({ refusal: 'no' }),
        delta({}, 'stop'),
        '[DONE]',
      ),
    );
    const result = assemble(events);
    expect(result).toMatchObject({ reasoning: 'think more', text: 'answer', refusal: 'no' });
    expect(events.filter((e) => e.type === 'block_start').map((e) => (e as { block: { kind: string } }).block.kind)).toEqual(['reasoning', 'text', 'refusal']);
  });

  it('legacy function_call deltas become a tool call', () => {
    const result = assemble(
      decodeText(
        sse(delta({ function_call: { name: 'f', arguments: '{"a"' } }), delta({ function_call: { arguments: ':1}' } }), delta({}, 'function_call'), '[DONE]'),
      ),
    );
    expect(result.toolCalls).toEqual([{ id: 'call_function_call', name: 'f', arguments: '{"a":1}' }]);
    expect(result).toMatchObject({ finish: 'tool_calls', finishRaw: 'function_call' });
  });

  it('keeps parallel tool calls open until the finish, so interleaved argument fragments reach their call', () => {
    const text = sse(
      delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      delta({}, 'tool_calls'),
      '[DONE]',
    );
    const events = decodeText(text);
    expect(events.slice(1, 9).map((e) => e.type)).toEqual([
      'block_start',
      'tool_args_delta',
      'block_start',
      'tool_args_delta',
      'tool_args_delta',
      'block_stop',
      'block_stop',
      'finish',
    ]);
    // Every fragment of a call comes before that call's block_stop.
    const stopAt = (index: number) => events.findIndex((e) => e.type === 'block_stop' && e.index === index);
    const lastArgAt = (index: number) => events.findLastIndex((e) => e.type === 'tool_args_delta' && e.index === index);
    expect(lastArgAt(0)).toBeLessThan(stopAt(0));
    const args = (index: number) => events.flatMap((e) => (e.type === 'tool_args_delta' && e.index === index ? [e.delta] : [])).join('');
    expect(args(0)).toBe('{"x":1}');
    expect(args(1)).toBe('{}');
    // Translated back to OpenAI Chat, the late fragment goes to the right tool call.
    const out = payloads(reencodeChunks([bytes(text)])) as Array<{ choices?: Array<{ delta: { tool_calls?: unknown[] } }> }>;
    expect(out.flatMap((c) => c.choices?.[0]?.delta.tool_calls ?? []).at(-1)).toEqual({ index: 0, function: { arguments: '1}' } });
  });

  it('ignores choices other than the first and anything after [DONE]', () => {
    const result = assemble(
      decodeText(
        sse(
          {
            ...base,
            choices: [
              { index: 1, delta: { content: 'B' }, finish_reason: null },
              { index: 0, delta: { content: 'A' }, finish_reason: null },
            ],
          },
          delta({}, 'stop'),
          '[DONE]',
          delta({ content: 'late' }),
        ),
      ),
    );
    expect(result).toMatchObject({ text: 'A', end: 'message_stop' });
  });
});
