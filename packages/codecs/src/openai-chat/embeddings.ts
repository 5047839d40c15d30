/**
 * OpenAI `POST /v1/embeddings`: `{ model, input, dimensions?, encoding_format?, user? }` where
 * `input` is a string, an array of strings, an array of token ids or an array of those; answered
 * with `{ object: "list", data: [{ object: "embedding", index, embedding }], model, usage }`, each
 * embedding a float array or (`encoding_format: "base64"`, what the OpenAI SDKs ask for) base64 of
 * little-endian float32.
 */
import type { EmbeddingsCodec } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { EmbedRequest, EmbedResponse } from '../ir/embedding.js';
import { emptyUsage } from '../ir/usage.js';
import type { ConversionWarning } from '../ir/warning.js';
import { base64ToVector, vectorToBase64 } from '../shared/float-base64.js';
import { asArray, asString, isObject, tokenCount, wellFormedCounts, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';

const KNOWN = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `${param}: ${message}`, { param });
}

const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && (t as number) >= 0);

function decodeInput(input: unknown): { inputs: Array<string | number[]>; batch: boolean } {
  if (typeof input === 'string') return { inputs: [input], batch: false };
  if (isTokens(input)) return { inputs: [input], batch: false };
  const list = asArray(input);
  if (list === undefined || list.length === 0) throw invalid('input', 'must be a string, an array of strings, or token arrays');
  if (list.every((x) => typeof x === 'string')) return { inputs: list, batch: true };
  if (list.every(isTokens)) return { inputs: list, batch: true };
  throw invalid('input', 'must be a string, an array of strings, or token arrays');
}

export const openaiEmbeddings: EmbeddingsCodec = {
  decodeRequest(body) {
    if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
    const { inputs, batch } = decodeInput(body['input']);
    const request: EmbedRequest = { inputs, batch };
    const model = asString(body['model']);
    if (model !== undefined) request.model = model;
    if (body['dimensions'] !== undefined && body['dimensions'] !== null) {
      const d = body['dimensions'];
      if (typeof d !== 'number' || !Number.isInteger(d) || d < 1) throw invalid('dimensions', 'must be a positive integer');
      request.dimensions = d;
    }
    const encoding = body['encoding_format'];
    if (encoding === 'float' || encoding === 'base64') request.encoding = encoding;
    else if (encoding !== undefined && encoding !== null) throw invalid('encoding_format', 'must be "float" or "base64"');
    const user = asString(body['user']);
    if (user !== undefined) request.user = user;
    const warnings: ConversionWarning[] = [];
    const unclassified = Object.keys(body).filter((k) => !KNOWN.has(k));
    for (const key of unclassified) warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known embeddings request field.` });
    return { request, warnings, unclassified };
  },

  encodeRequest(request, options = {}) {
    const warnings: ConversionWarning[] = [];
    const body: JsonObject = {};
    const model = options.model ?? request.model;
    if (model !== undefined) body['model'] = model;
    body['input'] = request.batch ? request.inputs : request.inputs[0];
    if (request.dimensions !== undefined) body['dimensions'] = request.dimensions;
    // The gateway reads the vectors itself: plain floats, whatever the client wants shown.
    body['encoding_format'] = 'float';
    if (request.user !== undefined) body['user'] = request.user;
    if (request.taskType !== undefined) warnings.push(dropped('taskType', 'OpenAI embeddings have no task type'));
    if (request.title !== undefined) warnings.push(dropped('title', 'OpenAI embeddings have no document title'));
    return { body, warnings };
  },

  decodeResponse(body) {
    if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned an embeddings answer that is not a JSON object.');
    const data = asArray(body['data']);
    if (data === undefined) throw new GatewayError('upstream_error', 'The upstream embeddings answer has no data.');
    const vectors: number[][] = [];
    const sorted = [...data].sort((a, b) => (isObject(a) && isObject(b) ? Number(a['index'] ?? 0) - Number(b['index'] ?? 0) : 0));
    for (const item of sorted) {
      const e = isObject(item) ? item['embedding'] : undefined;
      const vector = typeof e === 'string' ? base64ToVector(e) : Array.isArray(e) && e.every((x) => typeof x === 'number') ? e : undefined;
      if (vector === undefined) throw new GatewayError('upstream_error', 'The upstream embeddings answer holds an embedding that is not a vector.');
      vectors.push(vector);
    }
    const response: EmbedResponse = { model: asString(body['model']) ?? '', vectors, usage: null };
    const usage = body['usage'];
    if (isObject(usage) && wellFormedCounts(usage, ['prompt_tokens'])) response.usage = { ...emptyUsage(), input: tokenCount(usage['prompt_tokens']) };
    return response;
  },

  encodeResponse(response, request, options = {}) {
    const base64 = request.encoding === 'base64';
    const input = response.usage?.input ?? 0;
    const body: JsonObject = {
      object: 'list',
      data: response.vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? vectorToBase64(v) : v })),
      model: options.model ?? response.model,
      usage: { prompt_tokens: input, total_tokens: input },
    };
    return { body, warnings: [] };
  },
};
