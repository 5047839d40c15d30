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
  const text = new TextDecoder();
  const sse = createSseReader(onMessage, () => onFailure(oversizeError(options)), sizing);
  return {
    feed: (chunk) => sse.feed(text.decode(chunk, { stream: true })),
    end() {
      sse.feed(text.decode());
      sse.end();
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
