/**
 * Test harness: drives the anthropic_messages stream codec the way `convertStream` does (SSE
 * reader → decoder → encoder, synchronously per chunk), without going through the registry.
 */
import type { StreamEncoderOptions } from '../../codec.js';
import { errorInfo } from '../../errors/gateway-error.js';
import type { StreamEvent } from '../../ir/stream-event.js';
import { createSseReader, type SseMessage } from '../../sse/parse.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

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

export interface PipeOptions {
  maxEventBytes?: number;
}

function reader(onMessage: (m: SseMessage) => void, onOversize: () => void, options: PipeOptions) {
  return createSseReader(onMessage, onOversize, options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes });
}

const oversize = () => errorInfo('upstream_error', 'The upstream sent a stream event that is too large.', { status: 502 });

/** Bytes (in any slicing) → canonical events; stops at the first error, like `decodeStream`. */
export function decodeChunks(chunks: Uint8Array[], options: PipeOptions = {}): StreamEvent[] {
  const decoder = createStreamDecoder();
  const text = new TextDecoder();
  const events: StreamEvent[] = [];
  let stopped = false;
  const push = (event: StreamEvent) => {
    if (stopped) return;
    events.push(event);
    if (event.type === 'error') stopped = true;
  };
  const sse = reader((m) => !stopped && decoder.push(m, push), () => push({ type: 'error', error: oversize() }), options);
  for (const chunk of chunks) sse.feed(text.decode(chunk, { stream: true }));
  sse.feed(text.decode());
  sse.end();
  if (!stopped) decoder.end(push);
  return events;
}

export function decodeText(text: string, options: PipeOptions = {}): StreamEvent[] {
  return decodeChunks([bytes(text)], options);
}

/** Canonical events → Anthropic SSE text (then `end`). */
export function encodeEvents(events: StreamEvent[], options: StreamEncoderOptions = {}): string {
  const encoder = createStreamEncoder(options);
  let out = '';
  const write = (t: string) => {
    out += t;
  };
  for (const event of events) encoder.encode(event, write);
  encoder.end(write);
  return out;
}

/** Anthropic SSE bytes → IR → Anthropic SSE text, fused per chunk like `convertStream`. */
export function reencodeChunks(chunks: Uint8Array[], options: StreamEncoderOptions & PipeOptions = {}): string {
  const decoder = createStreamDecoder();
  const encoder = createStreamEncoder(options.model === undefined ? {} : { model: options.model });
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
  const sse = reader((m) => !finished && decoder.push(m, emit), () => emit({ type: 'error', error: oversize() }), options);
  for (const chunk of chunks) sse.feed(text.decode(chunk, { stream: true }));
  sse.feed(text.decode());
  sse.end();
  if (!finished) decoder.end(emit);
  if (!finished) encoder.end(write);
  return out;
}

export function reencodeText(text: string, options: StreamEncoderOptions & PipeOptions = {}): string {
  return reencodeChunks([bytes(text)], options);
}

/** Parse SSE text into `{ event, data }` with `data` JSON-parsed. */
export function parseSse(text: string): Array<{ event: string | undefined; data: Record<string, unknown> }> {
  const out: Array<{ event: string | undefined; data: Record<string, unknown> }> = [];
  const sse = createSseReader(
    (m) => out.push({ event: m.event, data: JSON.parse(m.data) as Record<string, unknown> }),
    () => {
      throw new Error('oversize');
    },
  );
  sse.feed(text);
  sse.end();
  return out;
}

export interface Assembled {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stop_reason: unknown;
  stop_sequence: unknown;
  usage: Record<string, unknown>;
  error?: Record<string, unknown>;
}

/**
 * Assemble an Anthropic stream the way `@anthropic-ai/sdk` does (MessageStream), strictly:
 * it throws on an out-of-order event, a delta for a block that is not open, or a wrong delta type.
 */
export function assemble(text: string, options: { skipUnknownBlocks?: boolean } = {}): Assembled {
  let message: Assembled | undefined;
  let open: number | null = null;
  const skipped = new Set<number>();
  const json = new Map<number, string>();
  const events = parseSse(text);
  for (const { event, data } of events) {
    if (event !== data['type']) throw new Error(`event name ${String(event)} != payload type ${String(data['type'])}`);
    if (data['type'] === 'ping') continue;
    if (data['type'] === 'error') {
      if (message === undefined) throw new Error('error before message_start');
      message.error = data['error'] as Record<string, unknown>;
      return message;
    }
    if (data['type'] === 'message_start') {
      if (message !== undefined) throw new Error('second message_start');
      const m = data['message'] as Record<string, unknown>;
      message = { ...(m as unknown as Assembled), content: [], usage: { ...(m['usage'] as Record<string, unknown>) } };
      continue;
    }
    if (message === undefined) throw new Error(`${String(data['type'])} before message_start`);
    const index = data['index'] as number;
    switch (data['type']) {
      case 'content_block_start': {
        const block = data['content_block'] as Record<string, unknown>;
        const known = ['text', 'thinking', 'redacted_thinking', 'tool_use'].includes(block['type'] as string);
        if (options.skipUnknownBlocks === true && !known) {
          skipped.add(index);
          break;
        }
        if (open !== null) throw new Error(`block ${index} started while ${open} is open`);
        if (index !== message.content.length + skipped.size) throw new Error(`block index ${index} out of order`);
        message.content.push({ ...block });
        open = index;
        break;
      }
      case 'content_block_delta': {
        if (skipped.has(index)) break;
        if (open !== index) throw new Error(`delta for block ${index} while ${String(open)} is open`);
        const block = message.content[message.content.length - 1]!;
        const delta = data['delta'] as Record<string, unknown>;
        if (delta['type'] === 'text_delta' && block['type'] === 'text') block['text'] = `${block['text'] as string}${delta['text'] as string}`;
        else if (delta['type'] === 'thinking_delta' && block['type'] === 'thinking') block['thinking'] = `${block['thinking'] as string}${delta['thinking'] as string}`;
        else if (delta['type'] === 'signature_delta' && block['type'] === 'thinking') block['signature'] = delta['signature'];
        else if (delta['type'] === 'input_json_delta' && block['type'] === 'tool_use') json.set(index, (json.get(index) ?? '') + (delta['partial_json'] as string));
        else if (delta['type'] === 'citations_delta') break;
        else throw new Error(`delta ${String(delta['type'])} for a ${String(block['type'])} block`);
        break;
      }
      case 'content_block_stop': {
        if (skipped.has(index)) break;
        if (open !== index) throw new Error(`stop for block ${index} while ${String(open)} is open`);
        const block = message.content[message.content.length - 1]!;
        const args = json.get(index);
        if (block['type'] === 'tool_use' && args !== undefined && args.length > 0) block['input'] = JSON.parse(args);
        open = null;
        break;
      }
      case 'message_delta': {
        const delta = data['delta'] as Record<string, unknown>;
        message.stop_reason = delta['stop_reason'];
        message.stop_sequence = delta['stop_sequence'];
        Object.assign(message.usage, data['usage'] as Record<string, unknown>);
        break;
      }
      case 'message_stop':
        if (open !== null) throw new Error('message_stop with an open block');
        return message;
      default:
        break;
    }
  }
  throw new Error('stream ended without message_stop or error');
}
