/**
 * Matrix I/O: build a source payload in its own wire format from the IR (encoded by the source
 * codec), convert it with the public functions, and decode the result with the target codec.
 */
import { expect } from 'vitest';
import { convertRequest, convertResponse } from '../../convert.js';
import { convertStream, decodeStream } from '../../convert-stream.js';
import type { ConversionWarning } from '../../ir/warning.js';
import type { Request } from '../../ir/request.js';
import type { Response } from '../../ir/response.js';
import type { StreamEvent } from '../../ir/stream-event.js';
import type { WireFormat } from '../../ir/wire-format.js';
import { codecs } from '../../registry.js';
import { pendingOutput } from '../../stream-framing.js';

/** The model a client names, and the upstream model the gateway sends. */
export const CLIENT_MODEL = 'client-model';
export const UPSTREAM_MODEL = 'upstream-model';

export type Json = Record<string, unknown>;

export interface RequestRun {
  /** The source body, as a client of `from` sends it. */
  source: Json;
  /** The converted body, as the upstream of `to` receives it. */
  wire: Json;
  warnings: ConversionWarning[];
  unclassified: string[];
  /** The converted body decoded by the target codec. */
  decoded: Request;
}

/** A request in `from`'s wire format, encoded from the IR by the source codec itself. */
export function sourceRequest(from: WireFormat, request: Request): Json {
  const encoded = codecs[from].encodeRequest(request, { model: CLIENT_MODEL });
  // The source payload must be a native one: nothing lost on the way in.
  expect(encoded.warnings, `encoding the ${from} source request`).toEqual([]);
  return encoded.body;
}

export function runRequest(from: WireFormat, to: WireFormat, request: Request): RequestRun {
  const source = sourceRequest(from, request);
  const converted = convertRequest(structuredClone(source), from, to, { model: UPSTREAM_MODEL });
  const decoded = codecs[to].decodeRequest(structuredClone(converted.body), { model: UPSTREAM_MODEL, stream: request.stream });
  // What the target codec writes, the target codec reads back without complaint.
  expect(decoded.warnings, `decoding the converted ${to} request`).toEqual([]);
  expect(decoded.unclassified).toEqual([]);
  return { source, wire: converted.body, warnings: converted.warnings, unclassified: converted.unclassified, decoded: decoded.request };
}

export interface ResponseRun {
  source: Json;
  wire: Json;
  /** The conversion's warnings about content (the vendor-field drops are in `vendorDropped`). */
  warnings: ConversionWarning[];
  /**
   * Vendor-only fields of the source response (Responses request echoes, Gemini candidate
   * fields) that the target has no place for: each is reported as one `dropped_field` warning.
   */
  vendorDropped: string[];
  decoded: Response;
  /** The source body decoded by the source codec: what the target is compared with. */
  reference: Response;
}

export function sourceResponse(from: WireFormat, response: Response): Json {
  const encoded = codecs[from].encodeResponse(response, { model: UPSTREAM_MODEL });
  expect(encoded.warnings, `encoding the ${from} source response`).toEqual([]);
  return encoded.body;
}

export function runResponse(from: WireFormat, to: WireFormat, response: Response): ResponseRun {
  const source = sourceResponse(from, response);
  const reference = codecs[from].decodeResponse(structuredClone(source));
  expect(reference.warnings).toEqual([]);
  const converted = convertResponse(structuredClone(source), from, to, { model: CLIENT_MODEL });
  const decoded = codecs[to].decodeResponse(structuredClone(converted.body));
  expect(decoded.warnings, `decoding the converted ${to} response`).toEqual([]);
  // Converse answers name no model; every other format shows the client the model it asked for.
  if (to !== 'bedrock_converse') expect(decoded.response.model).toBe(CLIENT_MODEL);
  // Vendor fields survive only a conversion to their own format; elsewhere each one is reported.
  const vendor = reference.response.vendor;
  const vendorKeys = vendor === undefined || vendor.format === ownFormat(to) ? [] : Object.keys(vendor.fields);
  const isVendorDrop = (w: ConversionWarning) => w.code === 'dropped_field' && w.path !== undefined && vendorKeys.includes(w.path);
  const vendorDropped = converted.warnings.filter(isVendorDrop).map((w) => w.path!);
  expect(vendorDropped.sort(), `vendor fields of ${from} dropped for ${to}`).toEqual([...vendorKeys].sort());
  return {
    source,
    wire: converted.body,
    warnings: converted.warnings.filter((w) => !isVendorDrop(w)),
    vendorDropped,
    decoded: decoded.response,
    reference: reference.response,
  };
}

/** The format whose vendor fields a codec re-emits (Vertex responses are Anthropic's). */
function ownFormat(format: WireFormat): WireFormat {
  return format === 'anthropic_vertex' ? 'anthropic_messages' : format;
}

/**
 * Canonical events → `format`'s stream bytes (SSE text or binary frames), by the format's own
 * stream encoder. With `cut`, the encoder is never told that the input ended: the bytes stop
 * where the upstream connection did.
 */
export function encodeEvents(format: WireFormat, events: StreamEvent[], cut = false): Uint8Array {
  const encoder = codecs[format].createStreamEncoder({ model: UPSTREAM_MODEL });
  const out = pendingOutput();
  for (const event of events) encoder.encode(event, out.write);
  if (!cut) encoder.end(out.write);
  return out.take();
}

/** Bytes in awkward slices (mid-line, mid-character, mid-frame), so conversion never relies on chunk boundaries. */
export function streamOf(input: string | Uint8Array): ReadableStream<Uint8Array> {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const cuts = [1, 7, 64, 65, 300, 1021, 2048, 4099].filter((c) => c < bytes.length);
  const parts: Uint8Array[] = [];
  let last = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > last) parts.push(bytes.subarray(last, cut));
    last = cut;
  }
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]);
      else controller.close();
    },
  });
}

export async function readBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const out = pendingOutput();
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out.write(chunk.slice());
  return out.take();
}

/** Stream bytes as text: SSE exactly; binary frames with their JSON payloads readable (for leak searches). */
export function wireText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

export async function decodeEvents(format: WireFormat, input: string | Uint8Array): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const reader = streamOf(input).pipeThrough(decodeStream(format)).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    events.push(value);
  }
}

export interface StreamRun {
  /** The source stream, as the upstream of `from` sends it. */
  source: Uint8Array;
  /** The converted stream, as the client of `to` receives it. */
  bytes: Uint8Array;
  /** The converted stream as text (see `wireText`). */
  wire: string;
  /** The source stream decoded by the source codec: what the target is compared with. */
  reference: StreamEvent[];
  /** The converted stream decoded by the target codec. */
  decoded: StreamEvent[];
}

export async function runStream(from: WireFormat, to: WireFormat, events: StreamEvent[], cut = false): Promise<StreamRun> {
  const source = encodeEvents(from, events, cut);
  const reference = await decodeEvents(from, source);
  const bytes = await readBytes(convertStream(streamOf(source), from, to, { model: CLIENT_MODEL }));
  const decoded = await decodeEvents(to, bytes);
  return { source, bytes, wire: wireText(bytes), reference, decoded };
}
