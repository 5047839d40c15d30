import type { Codec } from '../codec.js';
import { decodeRequest } from './decode-request.js';
import { answerToolCalls, decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';
import { decodeError, renderError } from './errors.js';
import { FORMAT, KNOWN_REQUEST_FIELDS } from './schemas.js';
import { costFields } from './cost-fields.js';

/**
 * Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse`). The model and streaming travel in the URL: pass them to
 * `decodeRequest` as options; `encodeRequest` writes no model.
 */
export const geminiCodec: Codec = {
  format: FORMAT,
  family: 'chat',
  knownRequestFields: KNOWN_REQUEST_FIELDS,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  createStreamDecoder,
  createStreamEncoder,
  renderError,
  decodeError,
  costFields,
  answerToolCalls,
};

export {
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  createStreamDecoder,
  createStreamEncoder,
  renderError,
  decodeError,
  costFields,
  answerToolCalls,
};
export { decodeUsage, encodeUsage } from './usage.js';
export { decodeFinishReason, encodeFinishReason } from './finish-reason.js';
export { fromGeminiSchema, toGeminiSchema } from './json-schema.js';
