/**
 * Stream conversions by wire format, over every codec (the root entry). `convertStreamWith`,
 * `decodeStreamWith` and `encodeStreamWith` (`@tollgate/codecs/base`) take codec objects
 * instead, and bundle only the codecs passed to them.
 */
import { convertStreamWith, decodeStreamWith, encodeStreamWith, type ByteSource, type ConvertStreamOptions } from './convert-stream-with.js';
import type { StreamEvent } from './ir/stream-event.js';
import type { WireFormat } from './ir/wire-format.js';
import { getCodec } from './registry.js';

export type { ByteSource, ConvertStreamOptions } from './convert-stream-with.js';

/**
 * Convert a stream of one wire format into another, chunk by chunk. Pull-based: nothing is read
 * from the source until the consumer asks, so a slow consumer slows the upstream read. Holds at
 * most one incomplete event. Failures become the target format's in-stream error event; a source
 * that ends without its terminal event is reported as an error, never as a clean finish.
 */
export function convertStream(readable: ByteSource, from: WireFormat, to: WireFormat, options: ConvertStreamOptions = {}): ReadableStream<Uint8Array> {
  return convertStreamWith(readable, getCodec(from), getCodec(to), options);
}

/** A TransformStream from a format's SSE bytes to canonical events. */
export function decodeStream(format: WireFormat, options: { maxEventBytes?: number } = {}): TransformStream<Uint8Array, StreamEvent> {
  return decodeStreamWith(getCodec(format), options);
}

/** A TransformStream from canonical events to a format's SSE bytes. */
export function encodeStream(format: WireFormat, options: { model?: string; includeUsage?: boolean } = {}): TransformStream<StreamEvent, Uint8Array> {
  return encodeStreamWith(getCodec(format), options);
}
