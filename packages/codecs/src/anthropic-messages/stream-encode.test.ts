import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { emptyUsage } from '../ir/usage.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { assemble, encodeEvents, parseSse, reencodeText } from './__tests__/harness.js';

const KEEP = new Set(['type', 'text', 'thinking', 'signature', 'data', 'id', 'name', 'input']);
const strip = (content: Array<Record<string, unknown>>) =>
  content
    .filter((b) => ['text', 'thinking', 'redacted_thinking', 'tool_use'].includes(b['type'] as string))
    .map((b) => Object.fromEntries(Object.entries(b).filter(([k]) => KEEP.has(k))));
const usageNumbers = (u: Record<string, unknown>) => ({
  input_tokens: u['input_tokens'],
  output_tokens: u['output_tokens'],
  cache_read_input_tokens: u['cache_read_input_tokens'] ?? 0,
  cache_creation_input_tokens: u['cache_creation_input_tokens'] ?? 0,
});

const start: StreamEvent = { type: 'message_start', id: 'chatcmpl-1', model: 'gpt-x' };

describe('anthropic_messages stream round trip (wire → IR → wire)', () => {
  it.each(fixtureFiles('anthropic-messages', '.sse'))('%s assembles to the same message', (file) => {
    const original = fixtureText(file);
    const before = assemble(original, { skipUnknownBlocks: true });
    const after = assemble(reencodeText(original));
    expect(after.id).toBe(before.id);
    expect(after.model).toBe(before.model);
    expect(strip(after.content)).toEqual(strip(before.content));
    expect(after.stop_reason).toBe(before.stop_reason);
    expect(after.stop_sequence ?? null).toBe(before.stop_sequence ?? null);
    expect(usageNumbers(after.usage)).toEqual(usageNumbers(before.usage));
    expect(after.error).toEqual(before.error === undefined ? undefined : { type: before.error['type'], message: before.error['message'] });
  });

  it('keeps thinking signatures and redacted data byte-exact', () => {
    for (const name of ['stream-thinking.sse', 'stream-thinking-then-tool-use.sse', 'stream-redacted-thinking.sse']) {
      const original = fixtureText(`anthropic-messages/${name}`);
      const opaque = [...original.matchAll(/"(?:signature|data)":"([A-Za-z0-9+/=]{20,})"/g)].map((m) => m[1]);
      expect(opaque.length).toBeGreaterThan(0);
      const out = reencodeText(original);
      for (const value of opaque) expect(out).toContain(value);
    }
  });

  it('frames every event as `event: <type>` + `data: <json>` + blank line', () => {
    const out = reencodeText(fixtureText('anthropic-messages/stream-text.sse'));
    expect(out.startsWith('event: message_start\ndata: {')).toBe(true);
    expect(out.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    for (const { event, data } of parseSse(out)) expect(event).toBe(data['type']);
  });

  it('renders the mid-stream overloaded error as an Anthropic error event, and nothing after it', () => {
    const out = reencodeText(fixtureText('anthropic-messages/stream-error-overloaded-midstream.sse'));
    expect(out.endsWith('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n')).toBe(true);
  });
});

describe('anthropic_messages stream encoding', () => {
  it('writes message_start with the msg_ id, the client model and zero usage when none is known', () => {
    const [first] = parseSse(encodeEvents([start, { type: 'message_stop' }], { model: 'claude-sonnet' }));
    expect(first!.data).toEqual({
      type: 'message_start',
      message: {
        id: 'msg_chatcmpl-1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 0,
        },
      },
    });
  });

  it('OpenAI-style interleaving: text and tool calls in one delta, parallel tool arguments interleaved', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Let me ' },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_a', name: 'weather' } },
      { type: 'tool_args_delta', index: 1, delta: '{"city":' },
      { type: 'text_delta', index: 0, text: 'check.' },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'call_b', name: 'time' } },
      { type: 'tool_args_delta', index: 2, delta: '{"tz":"Europe/' },
      { type: 'tool_args_delta', index: 1, delta: '"Paris"}' },
      { type: 'tool_args_delta', index: 2, delta: 'Paris"}' },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_stop', index: 1 },
      { type: 'block_stop', index: 2 },
      { type: 'usage', usage: { ...emptyUsage(), input: 388, cacheRead: 512, output: 64 } },
      { type: 'message_stop' },
    ];
    const message = assemble(encodeEvents(events));
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me ' },
      { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
      { type: 'text', text: 'check.' },
      { type: 'tool_use', id: 'call_b', name: 'time', input: { tz: 'Europe/Paris' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(usageNumbers(message.usage)).toEqual({ input_tokens: 388, output_tokens: 64, cache_read_input_tokens: 512, cache_creation_input_tokens: 0 });
  });

  it('writes a tool call with no arguments, redacted thinking, and signed thinking', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', redactedData: 'RD==', issuer: 'anthropic' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning', issuer: 'anthropic' } },
      { type: 'reasoning_delta', index: 1, text: 'hmm' },
      { type: 'signature', index: 1, signature: 'SIG/+=', issuer: 'anthropic' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_1', name: 'noop' } },
      { type: 'block_stop', index: 2 },
      { type: 'message_stop' },
    ];
    expect(assemble(encodeEvents(events)).content).toEqual([
      { type: 'redacted_thinking', data: 'RD==' },
      { type: 'thinking', thinking: 'hmm', signature: 'SIG/+=' },
      { type: 'tool_use', id: 'toolu_1', name: 'noop', input: {} },
    ]);
  });

  it('never writes foreign opaque values; foreign reasoning text shows as unsigned thinking', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', itemId: 'rs_1', encryptedContent: 'enc', issuer: 'openai' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning', redactedData: 'x', issuer: 'google' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'reasoning', issuer: 'google' } },
      { type: 'reasoning_delta', index: 2, text: 'thought' },
      { type: 'signature', index: 2, signature: 'gemini-sig', issuer: 'google' },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'c', name: 'f', thoughtSignature: 'ts', issuer: 'google' } },
      { type: 'tool_args_delta', index: 3, delta: '{}' },
      { type: 'signature', index: 3, signature: 'ts2', issuer: 'google' },
      { type: 'block_stop', index: 3 },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' } },
      { type: 'message_stop' },
    ];
    const out = encodeEvents(events);
    expect(out).not.toMatch(/"enc"|gemini-sig|ts2|"x"/);
    const message = assemble(out);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'thought', signature: '' },
      // The Gemini thought signature of a call travels folded into the id the client echoes back.
      { type: 'tool_use', id: foldSignature('c', 'ts'), name: 'f', input: {} },
    ]);
    expect(message.stop_reason).toBe('tool_use'); // a "stop" turn with tool calls
  });

  it('writes a started tool call that never got arguments or a block_stop before the finish', () => {
    const message = assemble(
      encodeEvents([
        start,
        { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'call_1', name: 'a' } },
        { type: 'tool_args_delta', index: 0, delta: '{"x":1}' },
        { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_2', name: 'b' } },
        { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' } },
        { type: 'message_stop' },
      ]),
    );
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'a', input: { x: 1 } },
      { type: 'tool_use', id: 'call_2', name: 'b', input: {} },
    ]);
  });

  it('keeps the stop sequence and the raw Anthropic stop reason', () => {
    const enc = (finish: StreamEvent) => assemble(encodeEvents([start, finish, { type: 'message_stop' }]));
    expect(enc({ type: 'finish', finishReason: { unified: 'stop_sequence', raw: 'stop' }, stopSequence: 'END' })).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
    });
    expect(enc({ type: 'finish', finishReason: { unified: 'length', raw: 'model_context_window_exceeded' } }).stop_reason).toBe(
      'model_context_window_exceeded',
    );
    expect(enc({ type: 'finish', finishReason: { unified: 'content_filter', raw: 'content_filter' } }).stop_reason).toBe('refusal');
  });

  it('an error event is the last thing written', () => {
    const out = encodeEvents([
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'par' },
      { type: 'error', error: errorInfo('rate_limited', 'Slow down.') },
      { type: 'text_delta', index: 0, text: 'tial' },
      { type: 'message_stop' },
    ]);
    const events = parseSse(out);
    expect(events.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down.' } } });
    expect(events.filter((e) => e.event === 'error')).toHaveLength(1);
    expect(out).not.toContain('tial');
  });

  it('a stream that ends without message_stop ends with a stream_incomplete error event', () => {
    const events = parseSse(encodeEvents([start, { type: 'block_start', index: 0, block: { kind: 'text' } }, { type: 'text_delta', index: 0, text: 'cut' }]));
    expect(events.at(-1)!.data).toEqual({ type: 'error', error: { type: 'api_error', message: expect.stringMatching(/ended before/) } });
  });

  it('synthesizes message_start when the first event is something else', () => {
    const message = assemble(
      encodeEvents([{ type: 'block_start', index: 0, block: { kind: 'text' } }, { type: 'text_delta', index: 0, text: 'x' }, { type: 'message_stop' }]),
    );
    expect(message.content).toEqual([{ type: 'text', text: 'x' }]);
  });

  it('property: any interleaving of one text and several tool blocks yields the same text and whole tool inputs', () => {
    const args = fc.array(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 }))), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(
        args,
        fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.boolean(),
        (inputs, texts, picks, stopEarly) => {
          // Block 0 is text, blocks 1..n are tools; each has a queue of fragments.
          const queues: Array<{ kind: 'text' | 'tool'; parts: string[] }> = [{ kind: 'text', parts: [...texts] }];
          inputs.forEach((input) => {
            const json = JSON.stringify(input);
            const third = Math.ceil(json.length / 3);
            queues.push({ kind: 'tool', parts: [json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)].filter((p) => p.length > 0) });
          });
          const events: StreamEvent[] = [start];
          const startedBlocks = new Set<number>();
          const stopped = new Set<number>();
          const emitFrom = (i: number) => {
            const q = queues[i]!;
            if (!startedBlocks.has(i)) {
              startedBlocks.add(i);
              events.push({
                type: 'block_start',
                index: i,
                block: q.kind === 'text' ? { kind: 'text' } : { kind: 'tool_call', id: `call_${i}`, name: `f${i}` },
              });
            }
            const part = q.parts.shift();
            if (part !== undefined)
              events.push(q.kind === 'text' ? { type: 'text_delta', index: i, text: part } : { type: 'tool_args_delta', index: i, delta: part });
            if (stopEarly && q.parts.length === 0 && !stopped.has(i)) {
              stopped.add(i);
              events.push({ type: 'block_stop', index: i });
            }
          };
          for (const pick of picks) {
            const live = queues.map((q, i) => (q.parts.length > 0 ? i : -1)).filter((i) => i >= 0);
            if (live.length === 0) break;
            emitFrom(live[pick % live.length]!);
          }
          queues.forEach((q, i) => {
            while (q.parts.length > 0 || !startedBlocks.has(i)) emitFrom(i);
          });
          events.push({ type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' } });
          queues.forEach((_, i) => !stopped.has(i) && events.push({ type: 'block_stop', index: i }));
          events.push({ type: 'message_stop' });

          const message = assemble(encodeEvents(events));
          const text = message.content
            .filter((b) => b['type'] === 'text')
            .map((b) => b['text'])
            .join('');
          expect(text).toBe(texts.join(''));
          const tools = message.content.filter((b) => b['type'] === 'tool_use');
          expect(tools.map((t) => t['id']).sort()).toEqual(inputs.map((_, i) => `call_${i + 1}`).sort());
          for (const tool of tools) expect(tool['input']).toEqual(inputs[Number((tool['id'] as string).slice(5)) - 1]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
