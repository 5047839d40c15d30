/** The openai_chat codec driven through the public convert functions (registry, plans). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson, fixtureText } from '../../../../test/support/fixtures.js';
import { convertRequest, convertResponse } from '../convert.js';
import { convertStream, decodeStream, encodeStream } from '../convert-stream.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { readAll, streamOf } from '../__tests__/harness.js';
import { bytes, sliceAt, reencodeChunks } from './__tests__/harness.js';

describe('openai_chat through convertStream', () => {
  const file = 'openai-chat/stream-tool-call-include-usage.sse';

  it('identity with usage asked for passes the bytes unchanged', async () => {
    const text = fixtureText(file);
    const events: StreamEvent[] = [];
    const out = await readAll(convertStream(streamOf(sliceAt(bytes(text), [10, 500, 501])), 'openai_chat', 'openai_chat', { onEvent: (e) => events.push(e) }));
    expect(out).toBe(text);
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { input: 53, output: 15 } });
  });

  it('identity without usage removes only the usage chunk the gateway asked for', async () => {
    const text = fixtureText(file);
    const events: StreamEvent[] = [];
    const out = await readAll(convertStream(streamOf([bytes(text)]), 'openai_chat', 'openai_chat', { includeUsage: false, onEvent: (e) => events.push(e) }));
    const blocks = text.split('\n\n').filter((b) => b !== '');
    const expected = blocks.filter((b) => !b.includes('"choices":[],"usage"'));
    expect(expected).toHaveLength(blocks.length - 1);
    expect(out).toBe(expected.map((b) => `${b}\n\n`).join(''));
    // Metering still sees the usage.
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { input: 53, output: 15 } });
  });

  it.each(fixtureFiles('openai-chat', '.sse'))('%s: decodeStream → encodeStream is slicing-independent', async (name) => {
    const data = bytes(fixtureText(name));
    const expected = reencodeChunks([data]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: data.length }), { maxLength: 20 }), async (cuts) => {
        const out = await readAll(streamOf(sliceAt(data, cuts)).pipeThrough(decodeStream('openai_chat')).pipeThrough(encodeStream('openai_chat')));
        expect(out).toBe(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('a bare JSON error body outside SSE framing goes on unchanged, and the decoder sees the error', async () => {
    const text = fixtureText(file);
    const bare = '{\n  "error": {\n    "message": "The server had an error.",\n    "type": "server_error"\n  }\n}';
    const events: StreamEvent[] = [];
    const out = await readAll(
      convertStream(streamOf([bytes(text.slice(0, text.indexOf('data: [DONE]')) + bare)]), 'openai_chat', 'openai_chat', {
        includeUsage: false,
        onEvent: (e) => events.push(e),
      }),
    );
    expect(out.endsWith(`${bare}\n`)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { message: 'The server had an error.' } });
    // Only the upstream's error: the gateway appends no stream_incomplete of its own.
    expect(out).not.toContain('stream_incomplete');
  });

  it('a stream cut before [DONE] ends in an error chunk', async () => {
    const text = fixtureText(file);
    const out = await readAll(
      convertStream(streamOf([bytes(text.slice(0, text.indexOf('data: [DONE]')))]), 'openai_chat', 'openai_chat', { includeUsage: false }),
    );
    expect(out.trimEnd().split('\n\n').at(-1)).toContain('"code":"stream_incomplete"');
  });
});

describe('openai_chat through convertRequest / convertResponse', () => {
  it('convertRequest openai_chat → openai_chat keeps the request and asks for usage', () => {
    const body = fixtureJson<Record<string, unknown>>('openai-chat/request-with-tools.json');
    const result = convertRequest({ ...body, stream: true }, 'openai_chat', 'openai_chat', { model: 'gpt-5-nano-2025-08-07' });
    expect(result.unclassified).toEqual([]);
    expect(result.body).toEqual({ ...body, model: 'gpt-5-nano-2025-08-07', stream: true, stream_options: { include_usage: true } });
  });

  it('convertResponse openai_chat → openai_chat shows the client its model name', () => {
    const body = fixtureJson<Record<string, unknown>>('openai-chat/response-cached-tokens.json');
    const result = convertResponse(body, 'openai_chat', 'openai_chat', { model: 'my-alias' });
    expect(result.body).toMatchObject({ id: body.id, model: 'my-alias', usage: { prompt_tokens: 4020, prompt_tokens_details: { cached_tokens: 4012 } } });
  });
});
