import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';

/** One server-sent event: its `event:` name (if any) and its `data:` text, verbatim. */
export interface SseMessage {
  event?: string;
  data: string;
}

export interface SseReaderOptions {
  /**
   * The largest single event accepted, in characters. Beyond it the reader reports
   * `onOversize` once and ignores the rest of the input. Default 8 MiB.
   */
  maxEventBytes?: number;
}

export interface SseReader {
  /** Feed decoded text; complete events are delivered synchronously to `onMessage`. */
  feed(text: string): void;
  /** Input ended: a final event missing its blank line is still delivered. */
  end(): void;
  /** True once an oversized event stopped the reader. */
  readonly failed: boolean;
}

export const DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * Incremental SSE reader over eventsource-parser: holds at most one incomplete event, ignores
 * comments and pings, and reports an event larger than the cap instead of buffering it.
 */
export function createSseReader(
  onMessage: (message: SseMessage) => void,
  onOversize: (chars: number) => void,
  options: SseReaderOptions = {},
): SseReader {
  const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  let failed = false;
  const parser = createParser({
    maxBufferSize: max,
    onEvent(message: EventSourceMessage) {
      const out: SseMessage = { data: message.data };
      if (message.event !== undefined) out.event = message.event;
      onMessage(out);
    },
    onError(error: ParseError) {
      if (error.type === 'max-buffer-size-exceeded' && !failed) {
        failed = true;
        onOversize(max);
      }
    },
  });

  return {
    get failed() {
      return failed;
    },
    feed(text) {
      if (failed || text.length === 0) return;
      parser.feed(text);
    },
    end() {
      if (failed) return;
      // eventsource-parser's reset({ consume }) parses a pending line but never dispatches the
      // event it belongs to; a blank line does, so a last event missing its terminator is delivered.
      parser.feed('\n\n');
      parser.reset();
    },
  };
}

/** Frame one SSE event. */
export function sseEvent(data: string, event?: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
