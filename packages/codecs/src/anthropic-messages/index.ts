import type { Codec } from '../codec.js';
import { createStreamDecoder } from './decode-stream.js';
import { decodeRequest } from './decode-request.js';
import { answerToolCalls, decodeResponse } from './decode-response.js';
import { createStreamEncoder } from './encode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { costFields } from './cost-fields.js';
import { decodeError, renderError } from './errors.js';
import { FORMAT, KNOWN_REQUEST_FIELDS } from './schemas.js';

/** The Anthropic Messages API (`POST /v1/messages`). */
export const anthropicMessagesCodec: Codec = {
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
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  renderError,
  decodeError,
  costFields,
  answerToolCalls,
};
export { DEFAULT_MAX_TOKENS } from './encode-request.js';
