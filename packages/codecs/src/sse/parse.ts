import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';

/** One server-sent event: its `event:` name (if any) and its `data:` text, verbatim. */
export interface SseMessage {
  event?: string;
  data: string;
  /**
   * True for a JSON object written into the stream outside SSE framing (its lines are not
   * `field: value` lines): Google's APIs end a failed stream with such a bare error body.
   */
  outOfBand?: true;
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

/** The largest bare JSON object gathered outside SSE framing; a longer one is dropped. */
const MAX_OUT_OF_BAND_CHARS = 64 * 1024;

/**
 * Incremental SSE reader over eventsource-parser: holds at most one incomplete event, ignores
 * comments and pings, and reports an event larger than the cap instead of buffering it. Lines
 * that are not SSE at all and form a JSON object (one line or pretty-printed over several) are
 * delivered as one message marked `outOfBand`; other stray lines are ignored, as SSE says.
 */
export function createSseReader(
  onMessage: (message: SseMessage) => void,
  onOversize: (chars: number) => void,
  options: SseReaderOptions = {},
): SseReader {
  const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  let failed = false;
  /** Stray lines gathered while they may still become one JSON object. */
  let stray: string | null = null;
  const strayLine = (line: string) => {
    if (stray === null) {
      if (!line.trimStart().startsWith('{')) return;
      stray = line;
    } else {
      stray += `\n${line}`;
    }
    if (stray.length > MAX_OUT_OF_BAND_CHARS) {
      stray = null;
      return;
    }
    if (!stray.trimEnd().endsWith('}')) return;
    let value: unknown;
    try {
      value = JSON.parse(stray);
    } catch {
      return; // not whole yet
    }
    const text = stray;
    stray = null;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) onMessage({ data: text, outOfBand: true });
  };
  const parser = createParser({
    maxBufferSize: max,
    onEvent(message: EventSourceMessage) {
      const out: SseMessage = { data: message.data };
      if (message.event !== undefined) out.event = message.event;
      onMessage(out);
    },
    onError(error: ParseError) {
      if (error.type === 'unknown-field') {
        if (error.line !== undefined) strayLine(error.line);
        return;
      }
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
