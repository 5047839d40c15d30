/**
 * `anthropic_vertex`: the Anthropic Messages grammar in the Vertex AI envelope. Requests are the
 * Messages body without `model` (it travels in the URL) and with `anthropic_version`; responses,
 * streams and model errors are Anthropic's, so those functions are the anthropic_messages codec's.
 */
import type { Codec, DecodedRequest, DecodeRequestOptions, EncodedRequest, EncodeRequestOptions } from '../codec.js';
import * as anthropic from '../anthropic-messages/index.js';
import { KNOWN_REQUEST_FIELDS as ANTHROPIC_FIELDS } from '../anthropic-messages/schemas.js';
import type { ErrorInfo } from '../errors/gateway-error.js';
import { decodeError as decodeGoogleError } from '../gemini/errors.js';
import type { Request } from '../ir/request.js';
import { isObject, parseJson } from '../shared/guards.js';
import { fromVertexEnvelope, toVertexEnvelope } from './envelope.js';

export const FORMAT = 'anthropic_vertex' as const;

export const KNOWN_REQUEST_FIELDS: readonly string[] = [...ANTHROPIC_FIELDS.filter((f) => f !== 'model'), 'anthropic_version'];

/** A Vertex body (model from the URL, via `options.model`) → canonical request. */
export function decodeRequest(body: unknown, options: DecodeRequestOptions = {}): DecodedRequest {
  if (!isObject(body)) return anthropic.decodeRequest(body, options);
  return anthropic.decodeRequest(fromVertexEnvelope(body, options.model), options);
}

/** Canonical request → the anthropic_messages body in the Vertex envelope. */
export function encodeRequest(request: Request, options: EncodeRequestOptions = {}): EncodedRequest {
  const encoded = anthropic.encodeRequest(request, options);
  return { body: toVertexEnvelope(encoded.body), warnings: encoded.warnings };
}

/**
 * Vertex answers in two shapes: Anthropic's own errors from the model, and Google's
 * `{ error: { code, message, status } }` from the Vertex front end (quota, permissions, regions).
 */
export function decodeError(status: number, body: unknown): ErrorInfo {
  let value = body;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    value = parsed.ok ? parsed.value : value;
  }
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  const inner = isObject(first) && isObject(first['error']) ? first['error'] : undefined;
  if (inner !== undefined && inner['type'] === undefined && (typeof inner['status'] === 'string' || typeof inner['code'] === 'number')) {
    return decodeGoogleError(status, first);
  }
  return anthropic.decodeError(status, value);
}

export const anthropicVertexCodec: Codec = {
  format: FORMAT,
  family: 'chat',
  knownRequestFields: KNOWN_REQUEST_FIELDS,
  decodeRequest,
  encodeRequest,
  decodeResponse: anthropic.decodeResponse,
  encodeResponse: anthropic.encodeResponse,
  createStreamDecoder: anthropic.createStreamDecoder,
  createStreamEncoder: anthropic.createStreamEncoder,
  renderError: anthropic.renderError,
  decodeError,
  // The body is Anthropic's once out of the envelope, and so are its cost-bearing fields.
  costFields: anthropic.costFields,
  answerToolCalls: anthropic.answerToolCalls,
};

export { toVertexEnvelope, fromVertexEnvelope, VERTEX_ANTHROPIC_VERSION } from './envelope.js';
