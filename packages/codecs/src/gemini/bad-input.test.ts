import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { bytes, decodeChunks, decodeText, parseChunks, reencodeChunks, reencodeText } from './__tests__/harness.js';

const first = 'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"}}],"responseId":"r","modelVersion":"m"}\r\n\r\n';
const terminal = (events: StreamEvent[]) => events.filter((e) => e.type === 'error' || e.type === 'message_stop');

describe('gemini_generate_content stream decoding of bad input', () => {
  it('truncated JSON becomes one upstream_error event, never a throw', () => {
    const events = decodeText(`${first}data: {"candidates":[{"content":{"par\r\n\r\n`);
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', message: expect.stringMatching(/not a valid JSON object/), status: 502 } });
    expect(terminal(events)).toHaveLength(1);
  });

  it('binary garbage never throws and ends in exactly one terminal event', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.nat({ max: 400 }), (garbage, cut) => {
        const data = new Uint8Array([...bytes(first), ...garbage]);
        const chunks = [data.subarray(0, cut), data.subarray(cut)];
        const events = decodeChunks(chunks);
        expect(terminal(events)).toHaveLength(1);
        const out = parseChunks(reencodeChunks(chunks));
        const last = out.at(-1)!;
        expect(last['error'] !== undefined || (last['candidates'] as any)[0].finishReason !== undefined).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores chunks of the wrong shape and parts it does not know', () => {
    const events = decodeText(
      first +
        'data: {"candidates":"nope"}\r\n\r\n' +
        'data: {"candidates":[{"content":{"parts":[{"executableCode":{"code":"1"}},{"inlineData":{"mimeType":"image/png","data":"AA=="}},7]}}]}\r\n\r\n' +
        'data: {"candidates":[{"finishReason":"STOP"}]}\r\n\r\n',
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'block_start', 'text_delta', 'block_stop', 'finish', 'message_stop']);
    expect(decodeText(`${first}data: [1]\r\n\r\n`).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
  });

  it('a stream that ends without a finishReason is stream_incomplete, at every chunk boundary', () => {
    const text = fixtureText('gemini/stream-thought-parts.sse');
    const boundaries = [...text.matchAll(/\r\n\r\n/g)].map((m) => m.index + 4);
    for (const end of boundaries.slice(0, -1)) {
      const events = decodeText(text.slice(0, end));
      expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'stream_incomplete', message: expect.any(String), status: 502 } });
      expect(terminal(events)).toHaveLength(1);
      expect(parseChunks(reencodeText(text.slice(0, end))).at(-1)).toEqual({ error: { code: 502, message: expect.any(String), status: 'INTERNAL' } });
    }
  });

  it('a stream cut mid-event is an error, never a clean finish', () => {
    const text = fixtureText('gemini/stream-text.sse');
    const last = text.lastIndexOf('data:');
    for (let end = 1; end < last + 20; end += 53) {
      const events = decodeText(text.slice(0, end));
      expect(events.at(-1)!.type).toBe('error');
    }
  });

  it('an empty body is an incomplete stream', () => {
    expect(decodeText('')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'stream_incomplete' }) }]);
  });

  it('an error chunk of any shape is one canonical error', () => {
    expect(decodeText(`${first}data: {"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n`).at(-1)).toEqual({
      type: 'error',
      error: { code: 'rate_limited', message: 'Quota', status: 429 },
    });
    expect(decodeText(`${first}data: {"error":{}}\r\n\r\n`).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
  });

  it('a 10 MB single event becomes one canonical error, quickly, without a throw', () => {
    const huge = `data: {"candidates":[{"content":{"parts":[{"text":"${'x'.repeat(10 * 1024 * 1024)}"}]}}]}\r\n\r\n`;
    const data = bytes(`${first}${huge}data: {"candidates":[{"finishReason":"STOP"}]}\r\n\r\n`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < data.length; i += 64 * 1024) chunks.push(data.subarray(i, i + 64 * 1024));
    const began = performance.now();
    const events = decodeChunks(chunks);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'upstream_error', status: 502 }) }]);
    expect(events.at(-1)!.type).toBe('error');
    const out = parseChunks(reencodeChunks(chunks));
    expect(out.filter((c) => c['error'] !== undefined)).toHaveLength(1);
    expect(out.at(-1)).toEqual({ error: { code: 502, message: expect.any(String), status: 'INTERNAL' } });
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('a 10 MB event under a larger cap decodes as one text delta', () => {
    const text = 'y'.repeat(10 * 1024 * 1024);
    const events = decodeText(`data: {"candidates":[{"content":{"parts":[{"text":"${text}"}]},"finishReason":"STOP"}]}\r\n\r\n`, {
      maxEventBytes: 16 * 1024 * 1024,
    });
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]!.type === 'text_delta' && deltas[0]!.text.length).toBe(text.length);
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });
});
