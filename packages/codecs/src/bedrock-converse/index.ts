import type { Codec } from '../codec.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';
import { costFields } from './cost-fields.js';
import { decodeError, renderError } from './errors.js';
import { eventStreamFraming } from './framing.js';
import { FORMAT, KNOWN_REQUEST_FIELDS } from './schemas.js';

/**
 * Amazon Bedrock Converse (`POST /model/{modelId}/converse`) and ConverseStream
 * (`/model/{modelId}/converse-stream`). The model and streaming travel in the URL: pass them to
 * `decodeRequest` as options; `encodeRequest` writes neither. Streams are AWS event-stream binary
 * frames (`streamFraming`), not server-sent events.
 */
export const bedrockConverseCodec: Codec = {
  format: FORMAT,
  family: 'chat',
  knownRequestFields: KNOWN_REQUEST_FIELDS,
  streamFraming: eventStreamFraming,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  createStreamDecoder,
  createStreamEncoder,
  renderError,
  decodeError,
  costFields,
};

export { decodeRequest, encodeRequest, decodeResponse, encodeResponse, createStreamDecoder, createStreamEncoder, renderError, decodeError, costFields };
export { decodeUsage, encodeUsage } from './usage.js';
export { decodeFinishReason, encodeFinishReason } from './finish-reason.js';
export { eventStreamFraming, EVENT_STREAM_CONTENT_TYPE, eventFrame, exceptionFrame } from './framing.js';
export { createEventStreamReader, decodeEventStreamMessage, encodeEventStreamMessage, crc32 } from './event-stream.js';
export type { EventStreamMessage, EventStreamHeaderValue, EventStreamProblem, EventStreamReader } from './event-stream.js';
