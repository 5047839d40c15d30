import type { Codec } from '../codec.js';
import { decodeRequest } from './decode-request.js';
import { answerToolCalls, decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';
import { decodeError, renderError } from './errors.js';
import { identityFilter } from './identity-filter.js';
import { costFields } from './cost-fields.js';
import { KNOWN_REQUEST_FIELDS } from './schemas.js';

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openaiChatCodec: Codec = {
  format: 'openai_chat',
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
  identityFilter,
  costFields,
  answerToolCalls,
};

export { decodeRequest, encodeRequest, decodeResponse, encodeResponse, createStreamDecoder, createStreamEncoder };
export { decodeError, renderError, identityFilter, costFields, answerToolCalls };
export { decodeUsage, encodeUsage } from './usage.js';
export { decodeFinishReason, encodeFinishReason } from './finish-reason.js';
