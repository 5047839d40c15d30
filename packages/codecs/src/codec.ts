import type { ErrorInfo } from './errors/gateway-error.js';
import type { CostFields } from './ir/cost.js';
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

/** Turns a format's SSE messages into canonical stream events, synchronously. */
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

/** Turns canonical stream events into a format's SSE text, synchronously. */
export interface StreamEncoder {
  encode(event: StreamEvent, write: (text: string) => void): void;
  /** Input ended; write whatever the format needs to close (nothing if already closed). */
  end(write: (text: string) => void): void;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** One wire format: decode and encode requests, responses, streams and errors. */
export interface Codec {
  readonly format: WireFormat;
  readonly family: Family;
  /** Every documented top-level request field; a coverage test checks each is classified. */
  readonly knownRequestFields: readonly string[];
  decodeRequest(body: unknown, options?: DecodeRequestOptions): DecodedRequest;
  encodeRequest(request: Request, options?: EncodeRequestOptions): EncodedRequest;
  decodeResponse(body: unknown): DecodedResponse;
  encodeResponse(response: Response, options?: EncodeResponseOptions): EncodedResponse;
  createStreamDecoder(): StreamDecoder;
  createStreamEncoder(options?: StreamEncoderOptions): StreamEncoder;
  /** The HTTP error body for a canonical error. */
  renderError(error: ErrorInfo): RenderedError;
  /** Decode an upstream error body (any shape) into a canonical error. */
  decodeError(status: number, body: unknown): ErrorInfo;
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
}
