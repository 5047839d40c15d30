/**
 * Gemini `POST /v1beta/models/{model}:countTokens`: `{ contents }` or a whole
 * `{ generateContentRequest }` (the form that counts the system instruction and tools too),
 * answered with `{ "totalTokens": n }`. The gateway always sends the whole request.
 */
import type { CountTokensCodec } from '../codec.js';
import { countIn } from '../shared/count-tokens.js';
import { isObject } from '../shared/guards.js';
import { decodeRequest } from './decode-request.js';
import { encodeRequest } from './encode-request.js';
import { camelKeys, invalid } from './schemas.js';

export const geminiCountTokens: CountTokensCodec = {
  decodeRequest(body, options = {}) {
    if (!isObject(body)) throw invalid('body', 'the request body must be a JSON object');
    const wire = camelKeys(body);
    const inner = wire['generateContentRequest'];
    if (inner !== undefined) {
      if (!isObject(inner)) throw invalid('generateContentRequest', 'must be a GenerateContentRequest object');
      const extra = Object.keys(wire).filter((k) => k !== 'generateContentRequest');
      if (extra.length > 0) throw invalid(extra[0]!, 'cannot be given beside generateContentRequest');
      return decodeRequest(inner, options);
    }
    return decodeRequest(wire, options);
  },
  encodeRequest(request, options = {}) {
    const encoded = encodeRequest(request, options);
    const model = options.model ?? request.model;
    const inner: Record<string, unknown> = { ...(model === undefined ? {} : { model: `models/${model.replace(/^models\//, '')}` }), ...encoded.body };
    return { body: { generateContentRequest: inner }, warnings: encoded.warnings };
  },
  decodeResponse: (body) => countIn(body, 'totalTokens'),
  encodeResponse: (inputTokens) => ({ totalTokens: inputTokens }),
};
