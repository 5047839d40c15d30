/**
 * Test harness: drives the openai_chat stream codec the way `convertStream` does (SSE reader →
 * decoder → encoder, synchronously per chunk), without going through the codec registry.
 */
import type { StreamEvent } from '../../ir/stream-event.js';
import { createSseReader, type SseMessage } from '../../sse/parse.js';
import { errorInfo } from '../../errors/gateway-error.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

const utf8 = new TextEncoder();

export function bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

/** Split bytes at the given (sorted, deduplicated) offsets. */
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

export interface DecodeOptions {
  maxEventBytes?: number;
}

/** Bytes (in any slicing) → canonical events; stops at the first error, like `decodeStream`. */
export function decodeChunks(chunks: Uint8Array[], options: DecodeOptions = {}): StreamEvent[] {
  const decoder = createStreamDecoder();
  const text = new TextDecoder();
  const events: StreamEvent[] = [];
  let stopped = false;
  const push = (event: StreamEvent) => {
    if (stopped) return;
    events.push(event);
    if (event.type === 'error') stopped = true;
  };
  const reader = createSseReader(
    (message: SseMessage) => {
      if (!stopped) decoder.push(message, push);
    },
    () => push({ type: 'error', error: errorInfo('upstream_error', 'oversize', { status: 502 }) }),
    options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes },
  );
  for (const chunk of chunks) reader.feed(text.decode(chunk, { stream: true }));
  reader.feed(text.decode());
  reader.end();
  if (!stopped) decoder.end(push);
  return events;
}

export function decodeText(text: string, options: DecodeOptions = {}): StreamEvent[] {
  return decodeChunks([bytes(text)], options);
}

/** Canonical events → SSE text. */
export function encodeEvents(events: StreamEvent[], options: { model?: string; includeUsage?: boolean } = {}, end = true): string {
  const encoder = createStreamEncoder(options);
  let out = '';
  const write = (t: string) => {
    out += t;
  };
  for (const event of events) encoder.encode(event, write);
  if (end) encoder.end(write);
  return out;
}

/** openai_chat → IR → openai_chat, fused chunk by chunk as `convertStream` translates. */
export function translateChunks(chunks: Uint8Array[], options: { model?: string; includeUsage?: boolean } = {}): string {
  const decoder = createStreamDecoder();
  const encoder = createStreamEncoder(options);
  const text = new TextDecoder();
  let out = '';
  let finished = false;
  const write = (t: string) => {
    out += t;
  };
  const emit = (event: StreamEvent) => {
    if (finished) return;
    encoder.encode(event, write);
    if (event.type === 'error') finished = true;
  };
  const reader = createSseReader((m) => {
    if (!finished) decoder.push(m, emit);
  }, () => emit({ type: 'error', error: errorInfo('upstream_error', 'oversize', { status: 502 }) }));
  for (const chunk of chunks) reader.feed(text.decode(chunk, { stream: true }));
  reader.feed(text.decode());
  reader.end();
  decoder.end(emit);
  if (!finished) encoder.end(write);
  return out;
}

/** The JSON payloads of an SSE text (`[DONE]` kept as the string). */
export function payloads(sse: string): unknown[] {
  const out: unknown[] = [];
  const reader = createSseReader((m) => out.push(m.data === '[DONE]' ? '[DONE]' : JSON.parse(m.data)), () => {});
  reader.feed(sse);
  reader.end();
  return out;
}
