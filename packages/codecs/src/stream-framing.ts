/**
 * One reading and writing interface over both stream framings: server-sent events (text) and a
 * codec's own binary framing (`Codec.streamFraming`, AWS event streams). The stream conversions
 * use these, so every path treats both alike.
 */
import type { Codec, StreamFrameReader } from './codec.js';
import { errorInfo, type ErrorInfo } from './errors/gateway-error.js';
import { createSseReader, DEFAULT_MAX_EVENT_BYTES, type SseMessage } from './sse/parse.js';

export interface FrameReaderOptions {
  maxEventBytes?: number;
}

/** The error for an upstream event larger than the cap. */
export function oversizeError(options: FrameReaderOptions): ErrorInfo {
  return errorInfo('upstream_error', `The upstream sent a stream event larger than ${options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES} bytes.`, {
    status: 502,
  });
}

/** A reader of `codec`'s stream bytes: its own framing, or SSE decoded as UTF-8 text. */
export function createFrameReader(
  codec: Codec,
  onMessage: (message: SseMessage) => void,
  onFailure: (error: ErrorInfo) => void,
  options: FrameReaderOptions = {},
): StreamFrameReader {
  const sizing = options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes };
  if (codec.streamFraming !== undefined) return codec.streamFraming.createReader(onMessage, onFailure, sizing);
  const sse = createSseReader(onMessage, () => onFailure(oversizeError(options)), sizing);
  const text = utf8Chunks();
  return {
    feed: (chunk) => sse.feed(text.decode(chunk)),
    end() {
      sse.feed(text.end());
      sse.end();
    },
  };
}

/** One decoder for every stream: it keeps no state between calls (`utf8Chunks` carries what is split). */
const sharedUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Where a chunk's last UTF-8 sequence starts when the chunk ends before it is complete (that
 * sequence's lead byte), else the chunk's length. Decoding up to there, and carrying the rest to
 * the next chunk, gives the text a streaming decoder would: every split falls before a
 * non-continuation byte, where a sequence still open would end with U+FFFD either way.
 */
function completeLength(chunk: Uint8Array): number {
  const n = chunk.byteLength;
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const b = chunk[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    if (b < 0xc0) return n;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return n - i < need ? i : n;
  }
  return n;
}

/**
 * UTF-8 chunks to text, as `new TextDecoder().decode(chunk, { stream: true })` per stream would
 * (a leading BOM dropped once, sequences split across chunks joined, invalid bytes as U+FFFD),
 * without a decoder per stream: a shared one decodes whole sequences, and the few bytes of a
 * sequence a chunk splits wait for the next chunk.
 */
export function utf8Chunks(): { decode(chunk: Uint8Array): string; end(): string } {
  let carry: Uint8Array | null = null;
  let atStart = true;
  const out = (decoded: string): string => {
    if (atStart && decoded.length > 0) {
      atStart = false;
      if (decoded.charCodeAt(0) === 0xfeff) return decoded.slice(1);
    }
    return decoded;
  };
  return {
    decode(chunk) {
      let bytes = chunk;
      if (carry !== null) {
        bytes = new Uint8Array(carry.byteLength + chunk.byteLength);
        bytes.set(carry);
        bytes.set(chunk, carry.byteLength);
        carry = null;
      }
      const complete = completeLength(bytes);
      if (complete < bytes.byteLength) carry = new Uint8Array(bytes.subarray(complete));
      return out(sharedUtf8.decode(complete === bytes.byteLength ? bytes : bytes.subarray(0, complete)));
    },
    end() {
      const rest = carry;
      carry = null;
      return rest === null ? '' : out(sharedUtf8.decode(rest));
    },
  };
}

/** The `content-type` of a stream in `codec`'s format. */
export function streamContentType(codec: Codec): string {
  return codec.streamFraming?.contentType ?? 'text/event-stream; charset=utf-8';
}

const utf8 = new TextEncoder();

/**
 * What an encoder wrote since the last hand-off, kept in order: text is joined and encoded once
 * (the SSE case costs what a string did), frames are kept as bytes.
 */
export interface PendingOutput {
  readonly write: (chunk: string | Uint8Array) => void;
  readonly empty: boolean;
  /** Everything written so far as one chunk; the output is empty afterwards. */
  take(): Uint8Array;
}

export function pendingOutput(): PendingOutput {
  let text = '';
  let parts: Uint8Array[] | null = null;
  let size = 0;
  const flushText = () => {
    if (text.length === 0) return;
    const bytes = utf8.encode(text);
    text = '';
    (parts ??= []).push(bytes);
    size += bytes.byteLength;
  };
  return {
    write(chunk) {
      if (typeof chunk === 'string') {
        text += chunk;
        return;
      }
      if (chunk.byteLength === 0) return;
      flushText();
      (parts ??= []).push(chunk);
      size += chunk.byteLength;
    },
    get empty() {
      return text.length === 0 && parts === null;
    },
    take() {
      if (parts === null) {
        const out = utf8.encode(text);
        text = '';
        return out;
      }
      flushText();
      const list: Uint8Array[] = parts;
      const total = size;
      parts = null;
      size = 0;
      if (list.length === 1) return list[0]!;
      const out = new Uint8Array(total);
      let at = 0;
      for (const part of list) {
        out.set(part, at);
        at += part.byteLength;
      }
      return out;
    },
  };
}
