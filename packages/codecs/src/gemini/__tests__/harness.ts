/**
 * Test harness: drives the gemini_generate_content stream codec the way `convertStream` does (SSE
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

/** Canonical events → Gemini SSE text (then `end`). */
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

/** Gemini SSE bytes → IR → Gemini SSE text, fused per chunk like `convertStream`. */
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

/** Gemini SSE text → the JSON chunks, checking Google's framing (`data:` only, CRLF CRLF). */
export function parseChunks(text: string): Array<Record<string, unknown>> {
  if (text.length === 0) return [];
  if (!text.endsWith('\r\n\r\n')) throw new Error('a Gemini stream ends with CRLF CRLF');
  return text
    .slice(0, -4)
    .split('\r\n\r\n')
    .map((event) => {
      if (!event.startsWith('data: ') || event.includes('\n')) throw new Error(`not a single data line: ${event.slice(0, 80)}`);
      return JSON.parse(event.slice(6)) as Record<string, unknown>;
    });
}

export interface Assembled {
  text: string;
  thoughts: string;
  functionCalls: Array<{ id?: string; name: string; args: unknown; thoughtSignature?: string }>;
  signatures: string[];
  finishReason?: string;
  usageMetadata?: Record<string, unknown>;
  responseId?: string;
  modelVersion?: string;
  error?: Record<string, unknown>;
}

/** What a Gemini client (the @google/genai SDK) gathers from a stream's chunks. */
export function assemble(text: string): Assembled {
  const out: Assembled = { text: '', thoughts: '', functionCalls: [], signatures: [] };
  for (const chunk of parseChunks(text)) {
    if (chunk['error'] !== undefined) {
      out.error = chunk['error'] as Record<string, unknown>;
      continue;
    }
    if (typeof chunk['responseId'] === 'string') out.responseId = chunk['responseId'];
    if (typeof chunk['modelVersion'] === 'string') out.modelVersion = chunk['modelVersion'];
    if (chunk['usageMetadata'] !== undefined) out.usageMetadata = chunk['usageMetadata'] as Record<string, unknown>;
    const candidate = (chunk['candidates'] as Array<Record<string, unknown>> | undefined)?.[0];
    if (candidate === undefined) continue;
    if (typeof candidate['finishReason'] === 'string') out.finishReason = candidate['finishReason'];
    const parts = ((candidate['content'] as Record<string, unknown> | undefined)?.['parts'] as Array<Record<string, unknown>> | undefined) ?? [];
    for (const part of parts) {
      const sig = part['thoughtSignature'] as string | undefined;
      if (part['functionCall'] !== undefined) {
        const call = part['functionCall'] as { id?: string; name: string; args: unknown };
        out.functionCalls.push(sig === undefined ? { ...call } : { ...call, thoughtSignature: sig });
        continue;
      }
      if (sig !== undefined) out.signatures.push(sig);
      if (part['thought'] === true) out.thoughts += part['text'] as string;
      else if (typeof part['text'] === 'string') out.text += part['text'];
    }
  }
  return out;
}
