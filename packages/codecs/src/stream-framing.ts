/**
 * One reading and writing interface over both stream framings: server-sent events (text) and a
 * codec's own binary framing (`Codec.streamFraming`, AWS event streams). The stream conversions
 * use these, so every path treats both alike.
 */
import type { Codec, StreamFrameReader } from './codec.js';
import { errorInfo, type ErrorInfo } from './errors/gateway-error.js';
import { createSseReader, DEFAULT_MAX_EVENT_BYTES, type SseMessage, type SseReader, type SseReaderOptions } from './sse/parse.js';

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
  return new SseFrameReader(onMessage, onFailure, options, sizing);
}

/** SSE over UTF-8 bytes: one object per stream (with its text decoder), not a set of closures. */
class SseFrameReader implements StreamFrameReader {
  private readonly sse: SseReader;
  private readonly text = new Utf8Chunks();

  constructor(onMessage: (message: SseMessage) => void, onFailure: (error: ErrorInfo) => void, options: FrameReaderOptions, sizing: SseReaderOptions) {
    this.sse = createSseReader(onMessage, () => onFailure(oversizeError(options)), sizing);
  }

  feed(chunk: Uint8Array): void {
    this.sse.feed(this.text.decode(chunk));
  }

  end(): void {
    this.sse.feed(this.text.end());
    this.sse.end();
  }
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
  return new Utf8Chunks();
}

class Utf8Chunks {
  private carry: Uint8Array | null = null;
  private atStart = true;

  private out(decoded: string): string {
    if (this.atStart && decoded.length > 0) {
      this.atStart = false;
      if (decoded.charCodeAt(0) === 0xfeff) return decoded.slice(1);
    }
    return decoded;
  }

  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    const carry = this.carry;
    if (carry !== null) {
      bytes = new Uint8Array(carry.byteLength + chunk.byteLength);
      bytes.set(carry);
      bytes.set(chunk, carry.byteLength);
      this.carry = null;
    }
    const complete = completeLength(bytes);
    if (complete < bytes.byteLength) this.carry = new Uint8Array(bytes.subarray(complete));
    return this.out(sharedUtf8.decode(complete === bytes.byteLength ? bytes : bytes.subarray(0, complete)));
  }

  end(): string {
    const rest = this.carry;
    this.carry = null;
    return rest === null ? '' : this.out(sharedUtf8.decode(rest));
  }
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
  return new Pending();
}

class Pending implements PendingOutput {
  private text = '';
  private parts: Uint8Array[] | null = null;
  private size = 0;
  /** Bound once: encoders are handed `write` on its own. */
  readonly write = (chunk: string | Uint8Array): void => {
    if (typeof chunk === 'string') {
      this.text += chunk;
      return;
    }
    if (chunk.byteLength === 0) return;
    this.flushText();
    (this.parts ??= []).push(chunk);
    this.size += chunk.byteLength;
  };

  private flushText(): void {
    if (this.text.length === 0) return;
    const bytes = utf8.encode(this.text);
    this.text = '';
    (this.parts ??= []).push(bytes);
    this.size += bytes.byteLength;
  }

  get empty(): boolean {
    return this.text.length === 0 && this.parts === null;
  }

  take(): Uint8Array {
    if (this.parts === null) {
      const out = utf8.encode(this.text);
      this.text = '';
      return out;
    }
    this.flushText();
    const list: Uint8Array[] = this.parts;
    const total = this.size;
    this.parts = null;
    this.size = 0;
    if (list.length === 1) return list[0]!;
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of list) {
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }
}
