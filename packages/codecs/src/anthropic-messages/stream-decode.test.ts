import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { decodeText } from './__tests__/harness.js';

const stream = (name: string) => decodeText(fixtureText(`anthropic-messages/${name}`));

/** Fold canonical events into per-block content, the way a consumer would. */
function blocks(events: StreamEvent[]) {
  const out: Array<{ kind: string; text: string; args: string; signature?: string; redactedData?: string; id?: string; name?: string; stopped: boolean }> = [];
  for (const e of events) {
    if (e.type === 'block_start') {
      expect(e.index).toBe(out.length);
      const b = e.block;
      out.push({
        kind: b.kind,
        text: '',
        args: '',
        stopped: false,
        ...(b.kind === 'tool_call' ? { id: b.id, name: b.name } : {}),
        ...(b.kind === 'reasoning' && b.redactedData !== undefined ? { redactedData: b.redactedData } : {}),
      });
    } else if (e.type === 'text_delta' || e.type === 'reasoning_delta') out[e.index]!.text += e.text;
    else if (e.type === 'tool_args_delta') out[e.index]!.args += e.delta;
    else if (e.type === 'signature') out[e.index]!.signature = e.signature;
    else if (e.type === 'block_stop') out[e.index]!.stopped = true;
  }
  return out;
}

const last = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) =>
  events.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type).at(-1);

describe('anthropic_messages stream fixtures', () => {
  const files = fixtureFiles('anthropic-messages', '.sse');

  it('finds the stream fixtures', () => {
    expect(files.length).toBe(8);
  });

  it.each(files)('%s: starts with message_start and ends with exactly one message_stop or error', (file) => {
    const events = decodeText(fixtureText(file));
    expect(events[0]!.type).toBe('message_start');
    const terminals = events.filter((e) => e.type === 'message_stop' || e.type === 'error');
    expect(terminals).toHaveLength(1);
    expect(events.at(-1)).toBe(terminals[0]);
    expect(blocks(events).every((b) => b.stopped || events.at(-1)!.type === 'error')).toBe(true);
  });

  it('stream-text: text, usage from message_start then the cumulative message_delta', () => {
    const events = stream('stream-text.sse');
    expect(events[0]).toEqual({
      type: 'message_start',
      id: 'msg_01T8kTq7cYyYJeQ5DxcVUc6D',
      model: 'claude-haiku-4-5-20251001',
      usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true },
    });
    expect(events[1]).toEqual({ type: 'usage', usage: events[0]!.type === 'message_start' ? events[0].usage : undefined });
    expect(blocks(events)).toEqual([{ kind: 'text', text: 'Hello', args: '', stopped: true }]);
    expect(last(events, 'finish')).toEqual({ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, stopSequence: null });
    expect(last(events, 'usage')!.usage).toMatchObject({ input: 10, output: 4 });
  });

  it('stream-thinking: thinking text (with multi-byte UTF-8) and its signature, then text', () => {
    const text = fixtureText('anthropic-messages/stream-thinking.sse');
    const signature = /"signature":"([^"]+)"/.exec(text.slice(text.indexOf('signature_delta')))![1];
    const [thinking, answer] = blocks(decodeText(text));
    expect(thinking!.kind).toBe('reasoning');
    expect(thinking!.text).toContain('Pelé (play on pelican)');
    expect(thinking!.text.startsWith('The user wants two names for a pet pelican')).toBe(true);
    expect(thinking!.signature).toBe(signature);
    expect(answer!.kind).toBe('text');
    expect(answer!.text.length).toBeGreaterThan(0);
    const sig = decodeText(text).find((e) => e.type === 'signature');
    expect(sig).toMatchObject({ issuer: 'anthropic' });
  });

  it('stream-thinking-then-tool-use: signed thinking, a tool call with no arguments, thinking tokens', () => {
    const events = stream('stream-thinking-then-tool-use.sse');
    const [thinking, tool] = blocks(events);
    expect(thinking!.signature?.startsWith('EoQDCm0IDhgCKkCDzGs2kL2P')).toBe(true);
    expect(tool).toEqual({ kind: 'tool_call', id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', text: '', args: '', stopped: true });
    expect(last(events, 'finish')!.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
    expect(last(events, 'usage')!.usage).toMatchObject({ input: 598, output: 92, reasoning: 53 });
  });

  it('stream-text-then-tool-use-input-json-delta: arguments assembled from 5 fragments', () => {
    const events = stream('stream-text-then-tool-use-input-json-delta.sse');
    const [text, tool] = blocks(events);
    expect(text!.text).toBe("I'll check the current weather in Paris for you.");
    expect(tool).toMatchObject({ kind: 'tool_call', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather' });
    expect(JSON.parse(tool!.args)).toEqual({ location: 'Paris' });
    expect(last(events, 'usage')!.usage).toMatchObject({ input: 377, output: 65 });
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('stream-tool-use-parallel: two tool calls, IR indexes 0 and 1', () => {
    const events = stream('stream-tool-use-parallel.sse');
    expect(blocks(events).map((b) => [b.kind, b.id, b.args])).toEqual([
      ['tool_call', 'toolu_01LtHJmixrs9NcWQkK8hu8hj', ''],
      ['tool_call', 'toolu_01N8a4jWyf116qKTMqKKmjyt', ''],
    ]);
  });

  it('stream-redacted-thinking: two redacted blocks carry their data, then text', () => {
    const text = fixtureText('anthropic-messages/stream-redacted-thinking.sse');
    const data = [...text.matchAll(/"type":"redacted_thinking","data":"([^"]+)"/g)].map((m) => m[1]);
    const out = blocks(decodeText(text));
    expect(out.map((b) => b.kind)).toEqual(['reasoning', 'reasoning', 'text']);
    expect(out.slice(0, 2).map((b) => b.redactedData)).toEqual(data);
    expect(out[2]!.text.startsWith("I notice that you've sent what appears to be some")).toBe(true);
  });

  it('stream-prompt-cache-usage: server tool blocks and their deltas skipped, cache usage exact', () => {
    const events = stream('stream-prompt-cache-usage.sse');
    const out = blocks(events);
    expect(out).toEqual([{ kind: 'text', text: 'The sum of the squares of the numbers 1 through 12 is **650**.', args: '', stopped: true }]);
    expect(events[0]).toMatchObject({ usage: { input: 2, cacheWrite: 3068, cacheWrite1h: 0, cacheRead: 0, output: 69 } });
    expect(last(events, 'usage')!.usage).toEqual({ input: 6, output: 198, cacheRead: 6289, cacheWrite: 3337, cacheWrite1h: 0, reasoning: 0, measured: true });
  });

  it('stream-error-overloaded-midstream: the partial text, then a canonical overloaded error', () => {
    const events = stream('stream-error-overloaded-midstream.sse');
    expect(blocks(events)[0]!.text).toBe('**Pete');
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'overloaded', message: 'Overloaded', status: 529 } });
    expect(events.some((e) => e.type === 'message_stop' || e.type === 'finish')).toBe(false);
  });
});

describe('anthropic_messages stream decoding details', () => {
  const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n';
  const ev = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;

  it('turns a non-empty tool_use input at content_block_start into a tool_args_delta', () => {
    const events = decodeText(
      start +
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } } }) +
        ev({ type: 'content_block_stop', index: 0 }) +
        ev({ type: 'message_stop' }),
    );
    expect(events.filter((e) => e.type === 'tool_args_delta')).toEqual([{ type: 'tool_args_delta', index: 0, delta: '{"a":1}' }]);
  });

  it('ignores citations_delta, pings and unknown event types; keeps the 1-hour cache split when message_delta has only a total', () => {
    const events = decodeText(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"cache_creation_input_tokens":50,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":40},"output_tokens":1}}}\n\n' +
        ': a comment\n\n' +
        ev({ type: 'ping' }) +
        ev({ type: 'brand_new_event', foo: 1 }) +
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: { type: 'x' } } }) +
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }) +
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'future_delta', x: 1 } }) +
        ev({ type: 'content_block_stop', index: 0 }) +
        ev({
          type: 'message_delta',
          delta: { stop_reason: 'stop_sequence', stop_sequence: '##' },
          usage: { output_tokens: 7, cache_creation_input_tokens: 60 },
        }) +
        ev({ type: 'message_stop' }),
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'usage', 'block_start', 'text_delta', 'block_stop', 'finish', 'usage', 'message_stop']);
    expect(last(events, 'finish')).toEqual({ type: 'finish', finishReason: { unified: 'stop_sequence', raw: 'stop_sequence' }, stopSequence: '##' });
    expect(last(events, 'usage')!.usage).toMatchObject({ input: 1, output: 7, cacheWrite: 20, cacheWrite1h: 40 });
  });

  it('closes blocks left open at message_stop', () => {
    const events = decodeText(start + ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'a' } }) + ev({ type: 'message_stop' }));
    expect(events.slice(-3)).toEqual([{ type: 'text_delta', index: 0, text: 'a' }, { type: 'block_stop', index: 0 }, { type: 'message_stop' }]);
  });

  it('ignores anything after message_stop', () => {
    const events = decodeText(
      start + ev({ type: 'message_stop' }) + ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'late' } }),
    );
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });
});
