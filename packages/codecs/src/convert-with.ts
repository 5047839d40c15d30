import type { Codec, EncodeResponseOptions } from './codec.js';
import type { ConversionWarning } from './ir/warning.js';

export interface ConvertRequestOptions {
  /** The model to put in the target body; also the source model when the source has none in its body. */
  model?: string;
  /** Streaming, when decided outside the body (Gemini's URL). */
  stream?: boolean;
}

export interface ConvertRequestResult {
  body: Record<string, unknown>;
  warnings: ConversionWarning[];
  /** Top-level source fields the codec could not classify (reported, never silently dropped). */
  unclassified: string[];
}

/** Convert a request body from the `source` codec's format to the `target` codec's (decode → IR → encode). */
export function convertRequestWith(body: unknown, source: Codec, target: Codec, options: ConvertRequestOptions = {}): ConvertRequestResult {
  const decodeOptions: { model?: string; stream?: boolean } = {};
  if (options.model !== undefined) decodeOptions.model = options.model;
  if (options.stream !== undefined) decodeOptions.stream = options.stream;
  const decoded = source.decodeRequest(body, decodeOptions);
  const encodeOptions: { model?: string; stream?: boolean } = { stream: decoded.request.stream };
  const model = options.model ?? decoded.request.model;
  if (model !== undefined) encodeOptions.model = model;
  const encoded = target.encodeRequest(decoded.request, encodeOptions);
  return { body: encoded.body, warnings: [...decoded.warnings, ...encoded.warnings], unclassified: decoded.unclassified };
}

export interface ConvertResponseResult {
  body: Record<string, unknown>;
  warnings: ConversionWarning[];
}

/** Convert a complete response body from the `source` codec's format to the `target` codec's. */
export function convertResponseWith(body: unknown, source: Codec, target: Codec, options: EncodeResponseOptions = {}): ConvertResponseResult {
  const decoded = source.decodeResponse(body);
  const encoded = target.encodeResponse(decoded.response, options);
  return { body: encoded.body, warnings: [...decoded.warnings, ...encoded.warnings] };
}
