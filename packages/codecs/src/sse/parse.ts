import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';

/** One server-sent event: its `event:` name (if any) and its `data:` text, verbatim. */
export interface SseMessage {
  event?: string;
  data: string;
  /**
   * True for a JSON object written into the stream outside SSE framing (its lines are not
   * `field: value` lines): Google's APIs end a failed stream with such a bare error body.
   */
  outOfBand?: true;
  /**
   * Set on a frame of a binary AWS event stream whose `:message-type` is `exception` (or `error`):
   * `event` then names the exception (`throttlingException`) and `data` holds its JSON body.
   */
  exception?: true;
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

/** The largest bare JSON body gathered outside SSE framing; a longer one is dropped. */
const MAX_OUT_OF_BAND_CHARS = 64 * 1024;

/** Brace depth of JSON text read so far, string-aware, one line at a time (linear overall). */
interface Depth {
  depth: number;
  inString: boolean;
  escaped: boolean;
}

function scan(state: Depth, line: string): void {
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (ch === 0x5c) state.escaped = true;
      else if (ch === 0x22) state.inString = false;
    } else if (ch === 0x22) state.inString = true;
    else if (ch === 0x7b || ch === 0x5b) state.depth++;
    else if (ch === 0x7d || ch === 0x5d) state.depth--;
  }
}

/**
 * Incremental SSE reader over eventsource-parser: holds at most one incomplete event, ignores
 * comments and pings, and reports an event larger than the cap instead of buffering it. Lines
 * that are not SSE at all and form a JSON error body (`{"error": …}`, on one line or
 * pretty-printed over several, as Google's APIs end a failed stream) are delivered as one
 * message marked `outOfBand`; other stray lines are ignored, as SSE says.
 */
export function createSseReader(onMessage: (message: SseMessage) => void, onOversize: (chars: number) => void, options: SseReaderOptions = {}): SseReader {
  return new SseTextReader(onMessage, onOversize, options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES);
}

/** `createSseReader`'s reader: one object and the parser's two callbacks per stream. */
class SseTextReader implements SseReader {
  failed = false;
  /** Stray lines gathered while they may still close one JSON object, and how deep it is open. */
  private stray: string | null = null;
  private readonly depth: Depth = { depth: 0, inString: false, escaped: false };
  private readonly parser: EventSourceParser;

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly onOversize: (chars: number) => void,
    private readonly max: number,
  ) {
    this.parser = createParser({
      maxBufferSize: max,
      onEvent: (message: EventSourceMessage) => {
        this.stray = null; // a real event: whatever stray text was open is not one body with what follows
        const out: SseMessage = { data: message.data };
        if (message.event !== undefined) out.event = message.event;
        this.onMessage(out);
      },
      onError: (error: ParseError) => {
        if (error.type === 'unknown-field') {
          if (error.line !== undefined) this.strayLine(error.line);
          return;
        }
        if (error.type === 'max-buffer-size-exceeded' && !this.failed) {
          this.failed = true;
          this.onOversize(this.max);
        }
      },
    });
  }

  private strayLine(line: string): void {
    const depth = this.depth;
    let stray = this.stray;
    if (stray === null) {
      if (!line.trimStart().startsWith('{')) return;
      stray = line;
      depth.depth = 0;
      depth.inString = false;
      depth.escaped = false;
    } else {
      stray += `\n${line}`;
    }
    this.stray = stray;
    scan(depth, line);
    if (stray.length > MAX_OUT_OF_BAND_CHARS || depth.depth < 0) {
      this.stray = null;
      return;
    }
    if (depth.depth > 0 || depth.inString) return; // still open
    // Closed: parsed once, whatever it is; only an error body goes on.
    this.stray = null;
    let value: unknown;
    try {
      value = JSON.parse(stray);
    } catch {
      return;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'error' in value) this.onMessage({ data: stray, outOfBand: true });
  }

  feed(text: string): void {
    if (this.failed || text.length === 0) return;
    this.parser.feed(text);
  }

  end(): void {
    if (this.failed) return;
    // eventsource-parser's reset({ consume }) parses a pending line but never dispatches the
    // event it belongs to; a blank line does, so a last event missing its terminator is delivered.
    this.parser.feed('\n\n');
    this.parser.reset();
  }
}

/** Frame one SSE event. */
export function sseEvent(data: string, event?: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
