/**
 * Responses errors use the OpenAI error shape, so rendering and decoding are the openai_chat
 * codec's. Only the in-stream `error` event is Responses-specific.
 */
import type { ErrorInfo } from '../errors/gateway-error.js';
import type { JsonObject } from '../shared/guards.js';
import { decodeError, errorBody, renderError } from '../openai-chat/errors.js';

export { decodeError, renderError };

/**
 * The `error` stream event. The documented shape has `code`, `message` and `param` at the top
 * level; the API also sends them under `error`, which is what makes the `openai` SDK raise.
 */
export function errorEvent(info: ErrorInfo, sequenceNumber: number): JsonObject {
  const error = errorBody(info).error;
  return {
    type: 'error',
    sequence_number: sequenceNumber,
    code: error.code ?? error.type,
    message: error.message,
    param: error.param,
    error,
  };
}

/** The `error` object of a failed response: `{ code, message }`. */
export function responseError(info: ErrorInfo): JsonObject {
  const error = errorBody(info).error;
  return { code: error.code ?? error.type, message: error.message };
}
