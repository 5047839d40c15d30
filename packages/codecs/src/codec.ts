import type { ErrorInfo } from './errors/gateway-error.js';
import type { CostFields } from './ir/cost.js';
import type { EmbedRequest, EmbedResponse } from './ir/embedding.js';
import type { Request } from './ir/request.js';
import type { Response } from './ir/response.js';
import type { StreamEvent } from './ir/stream-event.js';
import type { ConversionWarning } from './ir/warning.js';
import type { WireFormat } from './ir/wire-format.js';
import type { SseMessage } from './sse/parse.js';

/** Which request grammar a format speaks. Operations are keyed by (provider, format, family). */
export type Family = 'chat' | 'responses';

export interface DecodeRequestOptions {
  /** The model when it travels outside the body (Gemini's URL). */
  model?: string;
  /** Streaming when it is decided outside the body (Gemini's `:streamGenerateContent`). */
  stream?: boolean;
}

export interface DecodedRequest {
  request: Request;
  warnings: ConversionWarning[];
  /** Top-level request fields this codec could not classify, by name. */
  unclassified: string[];
}

export interface EncodeRequestOptions {
  /** The upstream model id to put in the body (formats that carry it there). */
  model?: string;
  stream?: boolean;
}

export interface EncodedRequest {
  body: Record<string, unknown>;
  warnings: ConversionWarning[];
}

export interface DecodedResponse {
  response: Response;
  warnings: ConversionWarning[];
}

export interface EncodeResponseOptions {
  /** The model name to show the client (the name it asked for). */
  model?: string;
}

export interface EncodedResponse {
  body: Record<string, unknown>;
  warnings: ConversionWarning[];
}

/**
 * Turns a format's stream messages into canonical stream events, synchronously. For SSE formats a
 * message is one server-sent event; for a binary framing (`Codec.streamFraming`) it is one frame.
 */
export interface StreamDecoder {
  push(message: SseMessage, emit: (event: StreamEvent) => void): void;
  /** The upstream closed. Emits an `error` event if the stream ended before its terminal event. */
  end(emit: (event: StreamEvent) => void): void;
}

export interface StreamEncoderOptions {
  /** The model name to show the client. */
  model?: string;
  /** Whether the client asked for usage in the stream (OpenAI `include_usage`). Default true. */
  includeUsage?: boolean;
}

/**
 * Where a stream encoder writes: SSE text, or (for a binary framing) whole frames as bytes. A
 * consumer keeps what is written in order.
 */
export type StreamWrite = (chunk: string | Uint8Array) => void;

/** Turns canonical stream events into a format's stream bytes (SSE text or frames), synchronously. */
export interface StreamEncoder {
  encode(event: StreamEvent, write: StreamWrite): void;
  /** Input ended; write whatever the format needs to close (nothing if already closed). */
  end(write: StreamWrite): void;
}

/** Reads a stream's bytes into messages, holding at most one incomplete frame. */
export interface StreamFrameReader {
  feed(chunk: Uint8Array): void;
  /** Input ended: a frame cut short is reported to `onFailure`. */
  end(): void;
}

export interface StreamFrameReaderOptions {
  /** The largest single frame accepted, in bytes. Default 8 MiB. */
  maxEventBytes?: number;
}

/**
 * How a format frames its streams when they are not server-sent events (AWS event streams). The
 * reader hands each complete frame to `onMessage` as a message; a corrupt, oversized or truncated
 * frame is reported once to `onFailure`, after which the reader ignores the rest of the input.
 */
export interface StreamFraming {
  /** The `content-type` of a stream in this framing. */
  readonly contentType: string;
  createReader(onMessage: (message: SseMessage) => void, onFailure: (error: ErrorInfo) => void, options?: StreamFrameReaderOptions): StreamFrameReader;
}

/** The response headers an error decoder may read. */
export interface ErrorHeaders {
  get(name: string): string | null;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * A format's token-counting endpoint (Anthropic `/v1/messages/count_tokens`, OpenAI
 * `/v1/responses/input_tokens`, Gemini `:countTokens`, Bedrock `CountTokens`): its request is
 * the format's generation request (in an envelope for some), its answer one number. Kept apart
 * from `Codec` (see `countTokensCodecs`), so a bundle that never counts holds none of them.
 */
export interface CountTokensCodec {
  decodeRequest(body: unknown, options?: DecodeRequestOptions): DecodedRequest;
  /** The counting request for a canonical request (fields the endpoint refuses are left out). */
  encodeRequest(request: Request, options?: EncodeRequestOptions): EncodedRequest;
  /** The input tokens of a counting answer; throws a canonical error on an answer without them. */
  decodeResponse(body: unknown): number;
  encodeResponse(inputTokens: number): Record<string, unknown>;
}

export interface DecodedEmbedRequest {
  request: EmbedRequest;
  warnings: ConversionWarning[];
  unclassified: string[];
}

export interface EncodeEmbedResponseOptions {
  /** The model name to show the client. */
  model?: string;
}

/**
 * A format's embeddings endpoint (OpenAI `/v1/embeddings`, Gemini `:embedContent` /
 * `:batchEmbedContents`). Kept apart from `Codec` (see `embeddingsCodecs`).
 */
export interface EmbeddingsCodec {
  decodeRequest(body: unknown, options?: DecodeRequestOptions): DecodedEmbedRequest;
  encodeRequest(request: EmbedRequest, options?: EncodeRequestOptions): EncodedRequest;
  decodeResponse(body: unknown): EmbedResponse;
  /** The answer for `request` (its shape, batch or single, and vector encoding follow the request). */
  encodeResponse(response: EmbedResponse, request: EmbedRequest, options?: EncodeEmbedResponseOptions): EncodedResponse;
}

/** One wire format: decode and encode requests, responses, streams and errors. */
export interface Codec {
  readonly format: WireFormat;
  readonly family: Family;
  /** Every documented top-level request field; a coverage test checks each is classified. */
  readonly knownRequestFields: readonly string[];
  /** How streams are framed; absent for server-sent events (`text/event-stream`). */
  readonly streamFraming?: StreamFraming;
  decodeRequest(body: unknown, options?: DecodeRequestOptions): DecodedRequest;
  encodeRequest(request: Request, options?: EncodeRequestOptions): EncodedRequest;
  decodeResponse(body: unknown): DecodedResponse;
  encodeResponse(response: Response, options?: EncodeResponseOptions): EncodedResponse;
  createStreamDecoder(): StreamDecoder;
  createStreamEncoder(options?: StreamEncoderOptions): StreamEncoder;
  /** The HTTP error body for a canonical error. */
  renderError(error: ErrorInfo): RenderedError;
  /**
   * Decode an upstream error body (any shape) into a canonical error. `headers`, when given, are
   * the upstream response's (Bedrock names its exception in `x-amzn-errortype`).
   */
  decodeError(status: number, body: unknown, headers?: ErrorHeaders): ErrorInfo;
  /**
   * For the identity plan: keep (possibly changed) or drop (null) one upstream event, e.g. the
   * usage chunk the gateway asked an OpenAI upstream for when the client did not.
   */
  identityFilter?(message: SseMessage, options: { includeUsage: boolean }): SseMessage | null;
  /**
   * The stateful features a request decoded by this codec uses, which only an upstream of the
   * same format can honour (OpenAI Responses: `previous_response_id`, built-in tools, …). Absent
   * for formats that have none.
   */
  statefulFeatures?(request: Request): string[];
  /**
   * What the wire fields of a request this codec decoded do to its cost beyond the canonical
   * request (choices, predicted outputs, stored or cached input, tools billed per call, premium
   * tiers). Absent for a format with none.
   */
  costFields?(request: Request): CostFields;
  /**
   * Every tool call a whole answer of this format asks the client to run — in every choice or
   * candidate and of every kind, those `decodeResponse` does not keep included — by name, null
   * for one it cannot name. An answer relayed as the upstream's own bytes carries them all, so
   * the tool guard checks these. Absent for a format whose `decodeResponse` keeps every call.
   */
  answerToolCalls?(body: unknown): Array<string | null>;
}
