import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { assemble, bytes, decodeChunks, decodeText, payloads, reencodeChunks } from './__tests__/harness.js';

const errorsOf = (events: StreamEvent[]) => events.filter((e) => e.type === 'error');
const lastError = (events: StreamEvent[]) => {
  const last = events.at(-1);
  expect(last?.type).toBe('error');
  return (last as Extract<StreamEvent, { type: 'error' }>).error;
};

describe('openai_chat stream bad input', () => {
  it('truncated JSON becomes one upstream_error event', () => {
    const events = decodeText('data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}\n\ndata: {"id":"c"}\n\ndata: [DONE]\n\n');
    expect(events).toHaveLength(1);
    expect(lastError(events)).toMatchObject({ code: 'upstream_error', status: 502 });
  });

  it('a chunk that is JSON but not an object becomes an error', () => {
    for (const data of ['42', '"text"', '[1,2]', 'null']) {
      const events = decodeText(`data: ${data}\n\n`);
      expect(events).toHaveLength(1);
      expect(lastError(events).code).toBe('upstream_error');
    }
  });

  it('unknown chunk shapes are ignored', () => {
    const events = decodeText(
      [
        '{"foo":1}',
        '{"choices":"nope"}',
        '{"choices":[1,null,{"index":0,"delta":null},{"index":0,"delta":{"content":5,"tool_calls":"x"}}]}',
        '{"choices":[{"index":0,"delta":{"tool_calls":[null,{"index":0,"function":{"arguments":"{}"}}]}}]}',
        '{"usage":"lots"}',
        '[DONE]',
      ]
        .map((d) => `data: ${d}\n\n`)
        .join(''),
    );
    expect(errorsOf(events)).toEqual([]);
    const result = assemble(events);
    expect(result.end).toBe('message_stop');
    expect(result.toolCalls).toEqual([{ id: 'call_0', name: '', arguments: '{}' }]);
  });

  it('an in-stream {"error": …} chunk becomes a canonical error', () => {
    const events = decodeText(
      'data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n' +
        'data: {"error":{"message":"Rate limit reached for org-abcdefgh123","type":"requests","param":null,"code":"rate_limit_exceeded"}}\n\n' +
        'data: [DONE]\n\n',
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'block_start', 'text_delta', 'error']);
    expect(lastError(events)).toEqual({ code: 'rate_limited', status: 429, limit: 'requests', message: 'Rate limit reached for org-***' });
  });

  it('a stream cut before [DONE] ends in stream_incomplete', () => {
    const text = fixtureText('openai-chat/stream-tool-call-include-usage.sse');
    const cut = text.slice(0, text.indexOf('data: [DONE]'));
    const events = decodeText(cut);
    expect(events.some((e) => e.type === 'finish')).toBe(true);
    expect(events.some((e) => e.type === 'message_stop')).toBe(false);
    expect(lastError(events)).toMatchObject({ code: 'stream_incomplete', status: 502 });
    const out = payloads(reencodeChunks([bytes(cut)]));
    expect(out.at(-1)).toMatchObject({ error: { code: 'stream_incomplete', type: 'server_error' } });
    expect(out).not.toContain('[DONE]');
  });

  it('an empty body is stream_incomplete', () => {
    expect(decodeChunks([])).toEqual([expect.objectContaining({ type: 'error' })]);
    expect(lastError(decodeChunks([])).code).toBe('stream_incomplete');
  });

  it('a 10 MB single event gives one canonical error, without throwing or hanging', () => {
    const piece = bytes('x'.repeat(64 * 1024));
    const chunks = [bytes('data: {"id":"c","choices":[{"index":0,"delta":{"content":"'), ...Array(160).fill(piece), bytes('"}}]}\n\ndata: [DONE]\n\n')];
    const started = Date.now();
    const events = decodeChunks(chunks);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events).toHaveLength(1);
    expect(lastError(events).code).toBe('upstream_error');
    const out = payloads(reencodeChunks(chunks));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ error: { type: 'server_error' } });
  });

  it('binary garbage never throws and ends with exactly one terminal event', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 8 }), (chunks) => {
        const events = decodeChunks(chunks);
        const terminal = events.filter((e) => e.type === 'error' || e.type === 'message_stop');
        expect(terminal).toHaveLength(1);
        expect(events.at(-1)).toBe(terminal[0]);
        expect(() => reencodeChunks(chunks)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('garbage framed as SSE data never throws', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.json(), fc.string()), { maxLength: 10 }), (datas) => {
        const text = datas.map((d) => `data: ${d.replaceAll('\n', ' ').replaceAll('\r', ' ')}\n\n`).join('');
        const events = decodeText(text);
        expect(events.filter((e) => e.type === 'error' || e.type === 'message_stop')).toHaveLength(1);
        const chunks = payloads(reencodeChunks([bytes(text)]));
        expect(chunks.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
