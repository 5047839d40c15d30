import type { Codec } from '../codec.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';
import { decodeError, renderError } from './errors.js';
import { FORMAT, KNOWN_REQUEST_FIELDS } from './schemas.js';
import { statefulFeatures } from './stateful.js';
import { costFields } from './cost-fields.js';
import { answerToolCalls } from './tool-calls.js';

/**
 * The OpenAI Responses API (`POST /v1/responses`). No identity filter: Responses streams always
 * end with the full response and its usage.
 */
export const openaiResponsesCodec: Codec = {
  format: FORMAT,
  family: 'responses',
  knownRequestFields: KNOWN_REQUEST_FIELDS,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  createStreamDecoder,
  createStreamEncoder,
  renderError,
  decodeError,
  statefulFeatures,
  costFields,
  answerToolCalls,
};

export { decodeRequest, encodeRequest, decodeResponse, encodeResponse, createStreamDecoder, createStreamEncoder };
export { decodeError, renderError };
export { statefulFeatures, costFields, answerToolCalls };
export { decodeUsage, encodeUsage } from './usage.js';
export { decodeFinishReason, encodeFinishReason } from './finish-reason.js';
