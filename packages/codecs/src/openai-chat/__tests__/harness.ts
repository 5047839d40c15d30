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

export interface Assembled {
  id?: string;
  model?: string;
  created?: number;
  text: string;
  reasoning: string;
  refusal: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish?: string;
  finishRaw?: string | null;
  usage?: unknown;
  end?: 'message_stop' | 'error';
  error?: unknown;
}

/**
 * Fold canonical events into what a client would assemble, checking the event grammar on the
 * way: one message_start first, deltas only inside open blocks, every block stopped before the
 * finish, nothing after the terminal event.
 */
export function assemble(events: StreamEvent[]): Assembled {
  const out: Assembled = { text: '', reasoning: '', refusal: '', toolCalls: [] };
  const open = new Map<number, { kind: string; call?: { id: string; name: string; arguments: string } }>();
  const seen = new Set<number>();
  events.forEach((event, i) => {
    if (out.end !== undefined) throw new Error(`event ${i} (${event.type}) after the terminal event`);
    if (i === 0 && event.type !== 'message_start' && event.type !== 'error') throw new Error(`first event is ${event.type}`);
    switch (event.type) {
      case 'message_start':
        if (i !== 0) throw new Error('message_start twice');
        out.id = event.id;
        out.model = event.model;
        if (event.created !== undefined) out.created = event.created;
        break;
      case 'block_start': {
        if (seen.has(event.index)) throw new Error(`block ${event.index} started twice`);
        seen.add(event.index);
        const block: { kind: string; call?: { id: string; name: string; arguments: string } } = { kind: event.block.kind };
        if (event.block.kind === 'tool_call') {
          block.call = { id: event.block.id, name: event.block.name, arguments: '' };
          out.toolCalls.push(block.call);
        }
        open.set(event.index, block);
        break;
      }
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_args_delta': {
        const block = open.get(event.index);
        if (block === undefined) throw new Error(`${event.type} for block ${event.index} that is not open`);
        if (event.type === 'tool_args_delta') block.call!.arguments += event.delta;
        else if (event.type === 'reasoning_delta') out.reasoning += event.text;
        else if (block.kind === 'refusal') out.refusal += event.text;
        else out.text += event.text;
        break;
      }
      case 'block_stop':
        if (!open.delete(event.index)) throw new Error(`block_stop for block ${event.index} that is not open`);
        break;
      case 'finish':
        if (open.size > 0) throw new Error('finish with open blocks');
        out.finish = event.finishReason.unified;
        out.finishRaw = event.finishReason.raw;
        break;
      case 'usage':
        out.usage = event.usage;
        break;
      case 'message_stop':
        if (out.finish === undefined) throw new Error('message_stop without finish');
        out.end = 'message_stop';
        break;
      case 'error':
        out.end = 'error';
        out.error = event.error;
        break;
      case 'signature':
        break;
    }
  });
  return out;
}
