/**
 * Request and response conversions by wire format, over every codec (the root entry).
 * `convertRequestWith` / `convertResponseWith` (`@tollgate/codecs/base`) take codec objects
 * instead, and bundle only the codecs passed to them.
 */
import type { EncodeResponseOptions } from './codec.js';
import { convertRequestWith, convertResponseWith, type ConvertRequestOptions, type ConvertRequestResult, type ConvertResponseResult } from './convert-with.js';
import type { WireFormat } from './ir/wire-format.js';
import { getCodec } from './registry.js';

export type { ConvertRequestOptions, ConvertRequestResult, ConvertResponseResult } from './convert-with.js';

/** Convert a request body between wire formats (decode → IR → encode). */
export function convertRequest(body: unknown, from: WireFormat, to: WireFormat, options: ConvertRequestOptions = {}): ConvertRequestResult {
  return convertRequestWith(body, getCodec(from), getCodec(to), options);
}

/** Convert a complete response body between wire formats. */
export function convertResponse(body: unknown, from: WireFormat, to: WireFormat, options: EncodeResponseOptions = {}): ConvertResponseResult {
  return convertResponseWith(body, getCodec(from), getCodec(to), options);
}
