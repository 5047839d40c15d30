import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { assemble, bytes, decodeChunks, decodeText, parseSse, reencodeChunks, reencodeText } from './__tests__/harness.js';

const created =
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}\n\n';
const completed =
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","output":[]}}\n\n';
const terminal = (events: StreamEvent[]) => events.filter((e) => e.type === 'error' || e.type === 'message_stop');

describe('openai_responses stream decoding of bad input', () => {
  it('truncated JSON becomes one upstream_error event, never a throw; the re-encoded stream fails cleanly', () => {
    const text = `${created}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi\n\n${completed}`;
    const events = decodeText(text);
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', message: expect.stringMatching(/not valid JSON/), status: 502 } });
    expect(terminal(events)).toHaveLength(1);
    const out = assemble(reencodeText(text));
    expect(out.types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(out.error).toMatchObject({ code: 'server_error', message: expect.stringMatching(/not valid JSON/), error: { type: 'server_error', code: null } });
  });

  it('a JSON value that is not an object is an error; a payload without a type is ignored', () => {
    expect(decodeText(`${created}data: [1,2]\n\n`).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
    expect(decodeText(`${created}data: {"no":"type"}\n\n${completed}`).map((e) => e.type)).toEqual(['message_start', 'finish', 'message_stop']);
  });

  it('binary garbage never throws and ends in exactly one terminal event, in both directions', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.nat({ max: 500 }), (garbage, cut) => {
        const data = new Uint8Array([...bytes(created), ...garbage]);
        const chunks = [data.subarray(0, cut), data.subarray(cut)];
        const events = decodeChunks(chunks);
        expect(terminal(events)).toHaveLength(1);
        expect(events.at(-1)!.type).toMatch(/^(error|message_stop)$/);
        const out = assemble(reencodeChunks(chunks));
        expect(out.terminal).toMatch(/^response\.(completed|failed)$/);
      }),
      { numRuns: 300 },
    );
  });

  it('events that name unknown items or indexes are ignored', () => {
    const events = decodeText(
      created +
        'data: {"type":"response.output_text.delta","output_index":5,"content_index":0,"delta":"lost"}\n\n' +
        'data: {"type":"response.function_call_arguments.delta","output_index":"x","delta":"{"}\n\n' +
        'data: {"type":"response.output_item.added","output_index":0,"item":"not an object"}\n\n' +
        'data: {"type":"response.content_part.added","output_index":0,"content_index":0,"part":{"type":"output_text","text":""}}\n\n' +
        completed,
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'finish', 'message_stop']);
  });

  it.each(fixtureFiles('openai-responses', '.sse'))('%s cut at event boundaries before its terminal event: stream_incomplete', (file) => {
    const text = fixtureText(file);
    const boundaries = [0, ...[...text.matchAll(/\n\n/g)].map((m) => m.index + 2)].slice(0, -1);
    // The big fixture: every 17th boundary and the last few (each cut decodes the whole prefix).
    const cuts = boundaries.length > 100 ? boundaries.filter((_, i) => i % 17 === 0 || i > boundaries.length - 5) : boundaries;
    const errorAt = text.indexOf('event: error');
    for (const end of cuts) {
      const events = decodeText(text.slice(0, end));
      expect(terminal(events)).toHaveLength(1);
      const expected = errorAt >= 0 && end > errorAt ? 'quota_exceeded' : 'stream_incomplete';
      expect(events.at(-1)).toEqual({
        type: 'error',
        error: expect.objectContaining({ code: expected, status: expected === 'stream_incomplete' ? 502 : 429 }),
      });
      expect(assemble(reencodeText(text.slice(0, end))).terminal).toBe('response.failed');
    }
  });

  it('a stream cut mid-event is an error, never a clean finish', () => {
    const text = fixtureText('openai-responses/stream-function-call-reasoning.sse');
    for (let end = 1; end < text.length - 40; end += 211) {
      expect(decodeText(text.slice(0, end)).at(-1)!.type).toBe('error');
      expect(parseSse(reencodeText(text.slice(0, end))).at(-1)!.event).toBe('response.failed');
    }
  });

  it('a 10 MB single event becomes one canonical error, quickly, without a throw', () => {
    const huge = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"${'x'.repeat(10 * 1024 * 1024)}"}\n\n`;
    const item = 'data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","content":[]}}\n\n';
    const data = bytes(`${created}${item}${huge}${completed}`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < data.length; i += 64 * 1024) chunks.push(data.subarray(i, i + 64 * 1024));
    const began = performance.now();
    const events = decodeChunks(chunks);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'upstream_error', status: 502 }) }]);
    expect(events.at(-1)!.type).toBe('error');
    const out = assemble(reencodeChunks(chunks));
    expect(out.types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('a 10 MB event under a larger cap decodes as one text delta and re-encodes whole', () => {
    const text = 'y'.repeat(10 * 1024 * 1024);
    const body =
      created +
      'data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","content":[]}}\n\n' +
      'data: {"type":"response.content_part.added","output_index":0,"content_index":0,"part":{"type":"output_text","text":""}}\n\n' +
      `data: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"${text}"}\n\n` +
      completed;
    const events = decodeText(body, { maxEventBytes: 16 * 1024 * 1024 });
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]!.type === 'text_delta' && deltas[0]!.text.length).toBe(text.length);
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('an empty body is an incomplete stream', () => {
    expect(decodeText('')).toEqual([{ type: 'error', error: expect.objectContaining({ code: 'stream_incomplete' }) }]);
  });
});
