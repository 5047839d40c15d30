import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { bytes, decodeChunks, decodeText, parseSse, reencodeChunks, reencodeText } from './__tests__/harness.js';

const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":0}}}\n\n';
const terminal = (events: StreamEvent[]) => events.filter((e) => e.type === 'error' || e.type === 'message_stop');

describe('anthropic_messages stream decoding of bad input', () => {
  it('truncated JSON becomes one upstream_error event, never a throw', () => {
    const events = decodeText(
      `${start}event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"ty\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', message: expect.stringMatching(/not a valid JSON object/), status: 502 } });
    expect(terminal(events)).toHaveLength(1);
  });

  it('binary garbage never throws and ends in exactly one terminal event', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), (garbage, cuts) => {
        const data = new Uint8Array([...bytes(start), ...garbage]);
        const chunks = [data.subarray(0, cuts[0] ?? data.length), data.subarray(cuts[0] ?? data.length)];
        const events = decodeChunks(chunks);
        expect(terminal(events)).toHaveLength(1);
        expect(events.at(-1)!.type).toMatch(/^(error|message_stop)$/);
        const out = parseSse(reencodeChunks(chunks));
        expect(out.at(-1)!.event).toMatch(/^(error|message_stop)$/);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores unknown event types and payloads of the wrong shape', () => {
    const events = decodeText(
      start +
        'event: surprise\ndata: {"type":"surprise","x":[1,2]}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"no index"}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":"not an object"}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'usage', 'message_stop']);
    expect(decodeText(`${start}data: [1]\n\n`).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
  });

  it('a cut stream ends with stream_incomplete at every event boundary before message_stop', () => {
    const text = fixtureText('anthropic-messages/stream-text-then-tool-use-input-json-delta.sse');
    const boundaries = [...text.matchAll(/\n\n/g)].map((m) => m.index + 2);
    for (const end of boundaries.slice(0, -1)) {
      const events = decodeText(text.slice(0, end));
      expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'stream_incomplete', message: expect.any(String), status: 502 } });
      expect(terminal(events)).toHaveLength(1);
    }
  });

  it('a stream cut mid-event is an error, never a clean finish', () => {
    const text = fixtureText('anthropic-messages/stream-thinking.sse');
    for (let end = 1; end < text.length - 30; end += 97) {
      const events = decodeText(text.slice(0, end));
      expect(events.at(-1)!.type).toBe('error');
      const out = parseSse(reencodeText(text.slice(0, end)));
      expect(out.at(-1)!.event).toBe('error');
    }
  });

  it('an empty body is an incomplete stream', () => {
    expect(decodeText('')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'stream_incomplete' }) }]);
  });

  it('an error event with an unknown type or shape still becomes one canonical error', () => {
    expect(decodeText(`${start}event: error\ndata: {"type":"error","error":{"type":"brand_new_error","message":"?"}}\n\n`).at(-1)).toEqual({
      type: 'error',
      error: { code: 'upstream_error', message: '?', status: 502 },
    });
    expect(decodeText(`${start}event: error\ndata: {"type":"error"}\n\n`).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
  });

  it('a 10 MB single event becomes one canonical error, quickly, without a throw', () => {
    const huge = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'x'.repeat(10 * 1024 * 1024)}"}}\n\n`;
    const data = bytes(
      `${start}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n${huge}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < data.length; i += 64 * 1024) chunks.push(data.subarray(i, i + 64 * 1024));
    const began = performance.now();
    const events = decodeChunks(chunks);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'upstream_error', status: 502 }) }]);
    expect(events.at(-1)!.type).toBe('error');
    const out = parseSse(reencodeChunks(chunks));
    expect(out.filter((e) => e.event === 'error')).toHaveLength(1);
    expect(out.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'api_error', message: expect.any(String) } } });
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('a 10 MB event under a larger cap decodes as one text delta', () => {
    const text = 'y'.repeat(10 * 1024 * 1024);
    const events = decodeText(
      `${start}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`,
      { maxEventBytes: 16 * 1024 * 1024 },
    );
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]!.type === 'text_delta' && deltas[0]!.text.length).toBe(text.length);
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });
});
