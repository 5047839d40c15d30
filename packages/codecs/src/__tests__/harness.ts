/**
 * Shared test harness: drives a format's stream codec the way `convertStream` does (SSE reader →
 * decoder → encoder, synchronously per chunk), without going through the codec registry. Each
 * format's `__tests__/harness.ts` binds it to its own decoder and encoder and adds the strict
 * assembler for its wire format.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { StreamDecoder, StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { createSseReader, type SseMessage } from '../sse/parse.js';
import { fixtureText } from '../../../../test/support/fixtures.js';

const utf8 = new TextEncoder();

export function bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

/** Split bytes at the given offsets (clamped, deduplicated, sorted). */
export function sliceAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(data.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let last = 0;
  for (const p of points) {
    out.push(data.subarray(last, p));
    last = p;
  }
  out.push(data.subarray(last));
  return out;
}

/** Parse SSE text into `{ event, data }` with `data` JSON-parsed; throws on an oversize event. */
export function parseSse<T = Record<string, unknown>>(text: string): Array<{ event: string | undefined; data: T }> {
  const out: Array<{ event: string | undefined; data: T }> = [];
  const sse = createSseReader(
    (m) => out.push({ event: m.event, data: JSON.parse(m.data) as T }),
    () => {
      throw new Error('oversize');
    },
  );
  sse.feed(text);
  sse.end();
  return out;
}

/** A readable stream that yields the given chunks, one per pull. */
export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= chunks.length) controller.close();
      else controller.enqueue(chunks[i++]);
    },
  });
}

/** All of a byte stream, as text. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let out = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}

export interface PipeOptions {
  maxEventBytes?: number;
}

/** The two stream factories of a format (its `Codec`, or its decode-stream / encode-stream modules). */
export interface StreamCodec {
  createStreamDecoder(): StreamDecoder;
  createStreamEncoder(options?: StreamEncoderOptions): StreamEncoder;
}

export interface StreamHarness {
  /** Bytes (in any slicing) → canonical events; stops at the first error, like `decodeStream`. */
  decodeChunks(chunks: Uint8Array[], options?: PipeOptions): StreamEvent[];
  decodeText(text: string, options?: PipeOptions): StreamEvent[];
  /** Canonical events → the format's SSE text (then `end`, unless `end` is false). */
  encodeEvents(events: StreamEvent[], options?: StreamEncoderOptions, end?: boolean): string;
  /** The format's SSE bytes → IR → the format's SSE text, fused per chunk like `convertStream`. */
  reencodeChunks(chunks: Uint8Array[], options?: StreamEncoderOptions & PipeOptions): string;
  reencodeText(text: string, options?: StreamEncoderOptions & PipeOptions): string;
}

function reader(onMessage: (m: SseMessage) => void, onOversize: () => void, options: PipeOptions) {
  return createSseReader(onMessage, onOversize, options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes });
}

const oversize = () => errorInfo('upstream_error', 'The upstream sent a stream event that is too large.', { status: 502 });

export function streamHarness(codec: StreamCodec): StreamHarness {
  function decodeChunks(chunks: Uint8Array[], options: PipeOptions = {}): StreamEvent[] {
    const decoder = codec.createStreamDecoder();
    const text = new TextDecoder();
    const events: StreamEvent[] = [];
    let stopped = false;
    const push = (event: StreamEvent) => {
      if (stopped) return;
      events.push(event);
      if (event.type === 'error') stopped = true;
    };
    const sse = reader(
      (m) => !stopped && decoder.push(m, push),
      () => push({ type: 'error', error: oversize() }),
      options,
    );
    for (const chunk of chunks) sse.feed(text.decode(chunk, { stream: true }));
    sse.feed(text.decode());
    sse.end();
    if (!stopped) decoder.end(push);
    return events;
  }

  function encodeEvents(events: StreamEvent[], options: StreamEncoderOptions = {}, end = true): string {
    const encoder = codec.createStreamEncoder(options);
    let out = '';
    const write = (t: string | Uint8Array) => {
      out += typeof t === 'string' ? t : new TextDecoder().decode(t);
    };
    for (const event of events) encoder.encode(event, write);
    if (end) encoder.end(write);
    return out;
  }

  function reencodeChunks(chunks: Uint8Array[], options: StreamEncoderOptions & PipeOptions = {}): string {
    const decoder = codec.createStreamDecoder();
    const { maxEventBytes: _, ...encoderOptions } = options;
    const encoder = codec.createStreamEncoder(encoderOptions);
    const text = new TextDecoder();
    let out = '';
    let finished = false;
    const write = (t: string | Uint8Array) => {
      out += typeof t === 'string' ? t : new TextDecoder().decode(t);
    };
    const emit = (event: StreamEvent) => {
      if (finished) return;
      encoder.encode(event, write);
      if (event.type === 'error') finished = true;
    };
    const sse = reader(
      (m) => !finished && decoder.push(m, emit),
      () => emit({ type: 'error', error: oversize() }),
      options,
    );
    for (const chunk of chunks) sse.feed(text.decode(chunk, { stream: true }));
    sse.feed(text.decode());
    sse.end();
    if (!finished) decoder.end(emit);
    if (!finished) encoder.end(write);
    return out;
  }

  return {
    decodeChunks,
    decodeText: (text, options = {}) => decodeChunks([bytes(text)], options),
    encodeEvents,
    reencodeChunks,
    reencodeText: (text, options = {}) => reencodeChunks([bytes(text)], options),
  };
}

/**
 * The slicing properties every stream codec must have, one test each per fixture (call inside a
 * `describe`): random cuts, then one byte at a time, give the same events and re-encoded output.
 */
export function itIsIndependentOfSlicing(harness: StreamHarness, files: string[], numRuns: (file: string) => number = () => 150): void {
  const { decodeChunks, reencodeChunks } = harness;
  it.each(files)('%s: random slicing gives the same events and the same re-encoded output', (file) => {
    const data = bytes(fixtureText(file));
    const events = decodeChunks([data]);
    const output = reencodeChunks([data]);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: data.length }), { maxLength: 40 }), (cuts) => {
        const chunks = sliceAt(data, cuts);
        expect(decodeChunks(chunks)).toEqual(events);
        expect(reencodeChunks(chunks)).toBe(output);
      }),
      { numRuns: numRuns(file) },
    );
  });

  it.each(files)('%s: one byte at a time gives the same events and output', (file) => {
    const data = bytes(fixtureText(file));
    const oneByOne = Array.from({ length: data.length }, (_, i) => data.subarray(i, i + 1));
    expect(decodeChunks(oneByOne)).toEqual(decodeChunks([data]));
    expect(reencodeChunks(oneByOne)).toBe(reencodeChunks([data]));
  });
}
