/**
 * Gemini embeddings: `:embedContent` (`{ content, taskType?, title?, outputDimensionality? }` →
 * `{ embedding: { values } }`) and `:batchEmbedContents` (`{ requests: [ … ] }` →
 * `{ embeddings: [{ values }] }`). The model travels in the URL. The gateway always calls
 * `:batchEmbedContents` (one request or many) and answers a client in the shape it asked in.
 */
import type { EmbeddingsCodec } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { EmbedRequest, EmbedResponse } from '../ir/embedding.js';
import { emptyUsage } from '../ir/usage.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asString, isObject, tokenCount, wellFormedCounts, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';
import { camelKeys, invalid } from './schemas.js';

const ENTRY_FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

/** The text of a Content: its text parts joined (other parts cannot be embedded as text). */
function textOf(content: unknown, path: string): string {
  if (!isObject(content)) throw invalid(path, 'must be a Content object with parts');
  const parts = asArray(content['parts']);
  if (parts === undefined || parts.length === 0) throw invalid(`${path}.parts`, 'must be a non-empty array of parts');
  return parts
    .map((p, i) => {
      if (!isObject(p) || typeof p['text'] !== 'string') throw invalid(`${path}.parts[${i}]`, 'only text parts can be embedded');
      return p['text'];
    })
    .join('\n');
}

interface One {
  text: string;
  taskType?: string;
  title?: string;
  dimensions?: number;
}

function decodeOne(raw: JsonObject, path: string, warnings: ConversionWarning[], unclassified: string[]): One {
  const wire = camelKeys(raw);
  const one: One = { text: textOf(wire['content'], `${path}content`) };
  const task = asString(wire['taskType']);
  if (task !== undefined) one.taskType = task;
  const title = asString(wire['title']);
  if (title !== undefined) one.title = title;
  const d = wire['outputDimensionality'];
  if (d !== undefined && d !== null) {
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 1) throw invalid(`${path}outputDimensionality`, 'must be a positive integer');
    one.dimensions = d;
  }
  for (const key of Object.keys(wire)) {
    if (ENTRY_FIELDS.has(key)) continue;
    unclassified.push(`${path}${key}`);
    warnings.push({ code: 'unclassified_field', path: `${path}${key}`, message: `${key} is not a known embedContent field.` });
  }
  return one;
}

export const geminiEmbeddings: EmbeddingsCodec = {
  decodeRequest(body, options = {}) {
    if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
    const warnings: ConversionWarning[] = [];
    const unclassified: string[] = [];
    let ones: One[];
    let batch: boolean;
    if (body['requests'] !== undefined) {
      const list = asArray(body['requests']);
      if (list === undefined || list.length === 0) throw invalid('requests', 'must be a non-empty array of embedContent requests');
      ones = list.map((r, i) => {
        if (!isObject(r)) throw invalid(`requests[${i}]`, 'must be an object');
        return decodeOne(r, `requests[${i}].`, warnings, unclassified);
      });
      for (const key of Object.keys(body))
        if (key !== 'requests') {
          unclassified.push(key);
          warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known batchEmbedContents field.` });
        }
      batch = true;
    } else {
      ones = [decodeOne(body, '', warnings, unclassified)];
      batch = false;
    }
    const first = ones[0]!;
    const request: EmbedRequest = { inputs: ones.map((o) => o.text), batch };
    if (options.model !== undefined) request.model = options.model;
    if (first.taskType !== undefined) request.taskType = first.taskType;
    if (first.title !== undefined) request.title = first.title;
    if (first.dimensions !== undefined) request.dimensions = first.dimensions;
    if (ones.some((o) => o.taskType !== first.taskType || o.dimensions !== first.dimensions)) {
      throw new GatewayError(
        'unsupported_feature',
        'requests: a batch with different task types or dimensionalities is not supported; send them as separate batches.',
        { param: 'requests' },
      );
    }
    if (ones.some((o) => o.title !== first.title)) warnings.push(lossy('requests', 'only the first title of a batch is kept'));
    return { request, warnings, unclassified };
  },

  encodeRequest(request, options = {}) {
    const warnings: ConversionWarning[] = [];
    const model = (options.model ?? request.model ?? '').replace(/^models\//, '');
    const requests = request.inputs.map((input, i) => {
      if (typeof input !== 'string') {
        throw new GatewayError('unsupported_feature', `input[${i}]: Gemini embeds text, not token ids.`, { param: 'input' });
      }
      const one: JsonObject = { model: `models/${model}`, content: { parts: [{ text: input }] } };
      if (request.taskType !== undefined) one['taskType'] = request.taskType;
      if (request.title !== undefined) one['title'] = request.title;
      if (request.dimensions !== undefined) one['outputDimensionality'] = request.dimensions;
      return one;
    });
    if (request.user !== undefined) warnings.push(dropped('user', 'Gemini embeddings have no end-user field'));
    return { body: { requests }, warnings };
  },

  decodeResponse(body) {
    if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned an embeddings answer that is not a JSON object.');
    const list = body['embeddings'] !== undefined ? asArray(body['embeddings']) : isObject(body['embedding']) ? [body['embedding']] : undefined;
    if (list === undefined) throw new GatewayError('upstream_error', 'The upstream embeddings answer has no embeddings.');
    const vectors = list.map((e) => {
      const values = isObject(e) ? e['values'] : undefined;
      if (!Array.isArray(values) || !values.every((x) => typeof x === 'number'))
        throw new GatewayError('upstream_error', 'The upstream embeddings answer holds an embedding that is not a vector.');
      return values;
    });
    const response: EmbedResponse = { model: '', vectors, usage: null };
    // The Gemini API reports no usage for embeddings; some deployments add usageMetadata.
    const meta = isObject(body['usageMetadata']) ? body['usageMetadata'] : undefined;
    if (meta !== undefined && wellFormedCounts(meta, ['promptTokenCount'])) response.usage = { ...emptyUsage(), input: tokenCount(meta['promptTokenCount']) };
    return response;
  },

  encodeResponse(response, request) {
    const body: JsonObject = request.batch
      ? { embeddings: response.vectors.map((values) => ({ values })) }
      : { embedding: { values: response.vectors[0] ?? [] } };
    return { body, warnings: [] };
  },
};
