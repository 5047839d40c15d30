import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../test/support/fixtures.js';
import type { Codec } from './codec.js';
import { convertStreamChunks, convertStreamWith } from './convert-stream-with.js';
import { anthropicMessagesCodec } from './anthropic-messages/index.js';
import { openaiChatCodec } from './openai-chat/index.js';
import { bytes, readAll, streamOf } from './__tests__/harness.js';

const START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
const source = () => streamOf([bytes(fixtureText('anthropic-messages/stream-text.sse'))]);
/** A target codec whose stream encoder throws on the first event. */
const broken: Codec = {
  ...openaiChatCodec,
  createStreamEncoder: () => ({
    encode() {
      throw new Error('encoder bug');
    },
    end() {},
  }),
};

describe('convertStreamWith onClose: the end of a converted stream is reported exactly once', () => {
  for (const [name, target] of [
    ['translated', openaiChatCodec],
    ['identity', anthropicMessagesCodec],
  ] as const) {
    it(`${name}: "done" once the last chunk was handed on`, async () => {
      const closes: string[] = [];
      const out = convertStreamWith(source(), anthropicMessagesCodec, target, { onClose: (how) => closes.push(how) });
      const text = await readAll(out);
      expect(text.length).toBeGreaterThan(0);
      expect(closes).toEqual(['done']);
    });

    it(`${name}: "cancelled" when the consumer cancels first, and the source is cancelled`, async () => {
      const closes: string[] = [];
      let sourceCancelled = false;
      let n = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(c) {
          if (n++ === 0) {
            c.enqueue(bytes(START));
            return;
          }
          c.enqueue(bytes('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"la"}}\n\n'));
        },
        cancel() {
          sourceCancelled = true;
        },
      });
      const out = convertStreamWith(endless, anthropicMessagesCodec, target, { onClose: (how) => closes.push(how) });
      const reader = out.getReader();
      await reader.read();
      await reader.cancel();
      await reader.cancel();
      expect(closes).toEqual(['cancelled']);
      expect(sourceCancelled).toBe(true);
    });
  }

  it('a translation that throws still reports its end (the stream errors, the source is cancelled)', async () => {
    const closes: string[] = [];
    let sourceCancelled = false;
    const slow = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes(fixtureText('anthropic-messages/stream-text.sse')));
      },
      cancel() {
        sourceCancelled = true;
      },
    });
    const out = convertStreamWith(slow, anthropicMessagesCodec, broken, { onClose: (how) => closes.push(how) });
    await expect(readAll(out)).rejects.toThrow('encoder bug');
    expect(closes).toEqual(['done']);
    expect(sourceCancelled).toBe(true);
  });
});

describe('convertStreamWith over an async iterable (a Node stream, say)', () => {
  const fixture = () => bytes(fixtureText('anthropic-messages/stream-text.sse'));
  async function* pieces(data: Uint8Array, size: number) {
    for (let i = 0; i < data.byteLength; i += size) yield data.subarray(i, i + size);
  }

  for (const target of [openaiChatCodec, anthropicMessagesCodec]) {
    it(`gives the same bytes as from a ReadableStream (${target.format})`, async () => {
      const fromStream = await readAll(convertStreamWith(streamOf([fixture()]), anthropicMessagesCodec, target, { model: 'm' }));
      const fromIterable = await readAll(convertStreamWith(pieces(fixture(), 37), anthropicMessagesCodec, target, { model: 'm' }));
      expect(fromIterable.replace(/"created":\d+/g, '')).toBe(fromStream.replace(/"created":\d+/g, ''));
    });
  }

  it('cancelling the converted stream ends the iteration (return() is called)', async () => {
    let returned = false;
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]() {
        let n = 0;
        return {
          next: async () => ({
            done: false as const,
            value: bytes(
              n++ === 0 ? START : 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"la"}}\n\n',
            ),
          }),
          return: async () => {
            returned = true;
            return { done: true as const, value: undefined };
          },
        };
      },
    };
    const reader = convertStreamWith(source, anthropicMessagesCodec, openaiChatCodec).getReader();
    await reader.read();
    await reader.cancel();
    expect(returned).toBe(true);
  });
});

describe('convertStreamChunks: the same conversion as an async iterator (no web stream)', () => {
  const fixture = () => bytes(fixtureText('anthropic-messages/stream-text.sse'));
  async function collect(chunks: AsyncIterable<Uint8Array>): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }

  for (const [name, target] of [
    ['translated', openaiChatCodec],
    ['identity', anthropicMessagesCodec],
  ] as const) {
    it(`${name}: gives the bytes convertStreamWith gives, and reports "done" once`, async () => {
      const closes: string[] = [];
      const fromStream = await readAll(convertStreamWith(streamOf([fixture()]), anthropicMessagesCodec, target, { model: 'm' }));
      const fromChunks = await collect(
        convertStreamChunks(streamOf([fixture()]), anthropicMessagesCodec, target, { model: 'm', onClose: (how) => closes.push(how) }),
      );
      expect(fromChunks.replace(/"created":\d+/g, '')).toBe(fromStream.replace(/"created":\d+/g, ''));
      expect(closes).toEqual(['done']);
    });

    it(`${name}: return() before the end cancels the source and reports "cancelled" once`, async () => {
      const closes: string[] = [];
      let sourceCancelled = false;
      let n = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(
            bytes(
              n++ === 0 ? START : 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"la"}}\n\n',
            ),
          );
        },
        cancel() {
          sourceCancelled = true;
        },
      });
      const chunks = convertStreamChunks(endless, anthropicMessagesCodec, target, { onClose: (how) => closes.push(how) });
      expect((await chunks.next()).done).toBe(false);
      await chunks.return!();
      await chunks.return!();
      expect(await chunks.next()).toEqual({ done: true, value: undefined });
      expect(closes).toEqual(['cancelled']);
      expect(sourceCancelled).toBe(true);
    });
  }

  it('a translation that throws fails this and every later next(), reports its end, and cancels the source', async () => {
    const closes: string[] = [];
    let sourceCancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(fixture());
      },
      cancel() {
        sourceCancelled = true;
      },
    });
    const chunks = convertStreamChunks(source, anthropicMessagesCodec, broken, { onClose: (how) => closes.push(how) });
    await expect(chunks.next()).rejects.toThrow('encoder bug');
    await expect(chunks.next()).rejects.toThrow('encoder bug');
    expect(closes).toEqual(['done']);
    expect(sourceCancelled).toBe(true);
  });

  it('pulls from the source only when asked, one pull at a time even when next() is called twice at once', async () => {
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulls++;
          c.enqueue(
            bytes(
              pulls === 1 ? START : 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"la"}}\n\n',
            ),
          );
        },
      },
      { highWaterMark: 0 },
    );
    const chunks = convertStreamChunks(source, anthropicMessagesCodec, openaiChatCodec);
    await new Promise((r) => setTimeout(r, 10));
    expect(pulls).toBe(0);
    const [a, b] = await Promise.all([chunks.next(), chunks.next()]);
    expect(a.done).toBe(false);
    expect(b.done).toBe(false);
    expect(new TextDecoder().decode(b.value as Uint8Array)).toContain('"la"');
    expect(pulls).toBe(2);
    await chunks.return!();
  });
});

describe('convertStreamChunks: return() while a next() waits for a silent source', () => {
  const DELTA = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"la"}}\n\n';
  const settled = <T>(p: Promise<T>, ms: number) =>
    Promise.race([
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms)),
    ]);

  for (const [name, target] of [
    ['translated', openaiChatCodec],
    ['identity', anthropicMessagesCodec],
  ] as const) {
    it(`${name}: the waiting next() ends at once, as a cancelled web stream's read does`, async () => {
      // A Node stream whose own iterator does not release a waiting read when returned.
      const upstream = new PassThrough();
      upstream.write(bytes(START));
      const chunks = convertStreamChunks(upstream, anthropicMessagesCodec, target);
      expect((await chunks.next()).done).toBe(false);
      const pending = chunks.next();
      await new Promise((r) => setTimeout(r, 10));
      void chunks.return!();
      expect(await settled(pending, 300)).toEqual({ value: { done: true, value: undefined } });
      expect(await settled(chunks.next(), 300)).toEqual({ value: { done: true, value: undefined } });
      upstream.end();
    });
  }

  it('what the source gives after return() is dropped, not handed out', async () => {
    let release!: (r: IteratorResult<Uint8Array>) => void;
    let n = 0;
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          n++ === 0 ? Promise.resolve({ done: false as const, value: bytes(START) }) : new Promise<IteratorResult<Uint8Array>>((r) => (release = r)),
        return: async () => ({ done: true as const, value: undefined }),
      }),
    };
    const chunks = convertStreamChunks(source, anthropicMessagesCodec, anthropicMessagesCodec);
    expect((await chunks.next()).done).toBe(false);
    const pending = chunks.next();
    await new Promise((r) => setTimeout(r, 10));
    await chunks.return!();
    release({ done: false, value: bytes(DELTA) });
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await chunks.next()).toEqual({ done: true, value: undefined });
  });
});

describe('a source that does not end after its terminal event, or stops mid-way', () => {
  for (const [name, target] of [
    ['translated', openaiChatCodec],
    ['identity', anthropicMessagesCodec],
  ] as const) {
    it(`${name}: the converted stream ends at the terminal event, and the source is let go`, async () => {
      let cancelled = false;
      let pulls = 0;
      // The whole stream, then nothing more ever (trailers that never end, a close that never comes).
      const lingering = new ReadableStream<Uint8Array>({
        pull(c) {
          if (pulls++ === 0) c.enqueue(bytes(fixtureText('anthropic-messages/stream-text.sse')));
          else return new Promise<void>(() => {});
        },
        cancel() {
          cancelled = true;
        },
      });
      const closes: string[] = [];
      const text = await readAll(convertStreamWith(lingering, anthropicMessagesCodec, target, { onClose: (how) => closes.push(how) }));
      expect(text).toContain(target === openaiChatCodec ? '[DONE]' : 'message_stop');
      expect(text).not.toContain('error');
      expect(closes).toEqual(['done']);
      expect(cancelled).toBe(true);
    });

    it(`${name}: a read that fails for lack of time ends with the format's timeout error`, async () => {
      let pulls = 0;
      const stalls = new ReadableStream<Uint8Array>({
        pull(c) {
          if (pulls++ === 0) c.enqueue(bytes(START));
          else c.error(new TypeError('terminated', { cause: Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' }) }));
        },
      });
      const events: string[] = [];
      const text = await readAll(
        convertStreamWith(stalls, anthropicMessagesCodec, target, {
          onEvent: (e) => {
            if (e.type === 'error') events.push(e.error.code);
          },
        }),
      );
      expect(events).toEqual(['upstream_timeout']);
      expect(text).toContain('gave up waiting');
    });
  }
});
