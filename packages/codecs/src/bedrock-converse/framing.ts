/** The stream framing of ConverseStream: AWS event-stream frames, read into stream messages. */
import type { StreamFraming } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import { DEFAULT_MAX_EVENT_BYTES, type SseMessage } from '../sse/parse.js';
import {
  createEventStreamReader,
  createEventStreamTextFramer,
  encodeEventStreamMessage,
  prepareEventStreamHeaders,
  type EventStreamMessage,
  type EventStreamTextFramer,
  type PreparedEventStreamHeaders,
} from './event-stream.js';

export const EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

function header(message: EventStreamMessage, name: string): string | undefined {
  const value = message.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * One frame → a stream message: an event is `{ event: :event-type, data: payload }`; an exception
 * frame is marked `exception` with `event` naming it; an `error` frame (`:error-code`,
 * `:error-message` headers, no payload) reads as an exception of that name.
 */
export function messageOfFrame(frame: EventStreamMessage): SseMessage {
  const kind = header(frame, ':message-type') ?? 'event';
  if (kind === 'exception') return { event: header(frame, ':exception-type') ?? 'internalServerException', data: utf8.decode(frame.body), exception: true };
  if (kind === 'error') {
    return {
      event: header(frame, ':error-code') ?? 'internalServerException',
      data: JSON.stringify({ message: header(frame, ':error-message') ?? '' }),
      exception: true,
    };
  }
  const out: SseMessage = { data: utf8.decode(frame.body) };
  const event = header(frame, ':event-type');
  if (event !== undefined) out.event = event;
  return out;
}

/** The headers of each event type, written once: a stream has a handful of types and many events. */
const EVENT_HEADERS = new Map<string, PreparedEventStreamHeaders>();

/** The prepared headers of an event frame of `type`. */
export function eventHeaders(type: string): PreparedEventStreamHeaders {
  let headers = EVENT_HEADERS.get(type);
  if (headers === undefined) {
    headers = prepareEventStreamHeaders({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' });
    if (EVENT_HEADERS.size < 64) EVENT_HEADERS.set(type, headers);
  }
  return headers;
}

/** An event frame of ConverseStream (a stream's encoder writes through its own framer instead). */
export function eventFrame(type: string, payload: unknown, framer: EventStreamTextFramer = createEventStreamTextFramer()): Uint8Array {
  return framer.frame(eventHeaders(type), JSON.stringify(payload));
}

/** An exception frame of ConverseStream. */
export function exceptionFrame(type: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    encoder.encode(JSON.stringify(payload)),
  );
}

export const eventStreamFraming: StreamFraming = {
  contentType: EVENT_STREAM_CONTENT_TYPE,
  createReader(onMessage, onFailure, options = {}) {
    const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    return createEventStreamReader(
      (frame) => onMessage(messageOfFrame(frame)),
      (problem, detail) => {
        if (problem === 'truncated') onFailure(errorInfo('stream_incomplete', 'The upstream stream ended inside an event-stream frame.'));
        else if (problem === 'oversize') onFailure(errorInfo('upstream_error', `The upstream sent a stream event larger than ${max} bytes.`, { status: 502 }));
        else onFailure(errorInfo('upstream_error', `The upstream sent a corrupt event-stream frame (${detail}).`, { status: 502 }));
      },
      max,
    );
  },
};
