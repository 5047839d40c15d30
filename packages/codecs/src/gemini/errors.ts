/** Google API errors (`{ error: { code, message, status, details } }`) ⇄ canonical errors. */
import type { RenderedError } from '../codec.js';
import { codeForStatus, ERROR_CODES, errorInfo, type ErrorCode, type ErrorInfo } from '../errors/gateway-error.js';
import { asNumber, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';

/** The google.rpc status name and HTTP status a Google client expects for each canonical code. */
const WIRE: Record<ErrorCode, { status: string; http?: number }> = {
  invalid_request: { status: 'INVALID_ARGUMENT' },
  context_length_exceeded: { status: 'INVALID_ARGUMENT' },
  unsupported_feature: { status: 'INVALID_ARGUMENT' },
  request_too_large: { status: 'INVALID_ARGUMENT' },
  authentication_failed: { status: 'UNAUTHENTICATED' },
  permission_denied: { status: 'PERMISSION_DENIED' },
  model_not_found: { status: 'NOT_FOUND' },
  not_found: { status: 'NOT_FOUND' },
  rate_limited: { status: 'RESOURCE_EXHAUSTED' },
  quota_exceeded: { status: 'RESOURCE_EXHAUSTED' },
  upstream_error: { status: 'INTERNAL' },
  stream_incomplete: { status: 'INTERNAL' },
  internal: { status: 'INTERNAL' },
  upstream_timeout: { status: 'DEADLINE_EXCEEDED' },
  // Google clients know 503 UNAVAILABLE ("the model is overloaded"), not 529.
  overloaded: { status: 'UNAVAILABLE', http: 503 },
  unavailable: { status: 'UNAVAILABLE' },
  cancelled: { status: 'CANCELLED' },
};

/** google.rpc status name → canonical code. */
const FROM_WIRE: Record<string, ErrorCode> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication_failed',
  PERMISSION_DENIED: 'permission_denied',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limited',
  INTERNAL: 'upstream_error',
  UNKNOWN: 'upstream_error',
  DATA_LOSS: 'upstream_error',
  UNAVAILABLE: 'unavailable',
  DEADLINE_EXCEEDED: 'upstream_timeout',
  CANCELLED: 'cancelled',
  UNIMPLEMENTED: 'unsupported_feature',
};

/** These concern the gateway's own Google credentials, not the caller: never relay Google's text. */
const SCRUBBED: Partial<Record<ErrorCode, string>> = {
  authentication_failed: 'The upstream provider rejected the gateway credentials.',
  permission_denied: 'The upstream provider denied the gateway permission for this request.',
};

const MAX_MESSAGE = 2000;

function message(info: ErrorInfo): string {
  if (info.code === 'quota_exceeded' && !/budget|quota/i.test(info.message)) return `Your budget is exhausted: ${info.message}`;
  return info.message;
}

function httpStatus(info: ErrorInfo): number {
  const fixed = WIRE[info.code]?.http;
  if (fixed !== undefined) return fixed;
  if (info.status === 529) return 503;
  return info.status >= 400 && info.status <= 599 ? info.status : (ERROR_CODES[info.code]?.status ?? 500);
}

/** The HTTP and in-stream error body: `{ error: { code, message, status } }`. */
export function errorBody(info: ErrorInfo): { error: JsonObject } {
  const error: JsonObject = { code: httpStatus(info), message: message(info), status: WIRE[info.code]?.status ?? 'INTERNAL' };
  if (info.retryAfterS !== undefined) {
    error['details'] = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.max(0, Math.ceil(info.retryAfterS))}s` }];
  }
  return { error };
}

export function renderError(info: ErrorInfo): RenderedError {
  const rendered: RenderedError = { status: httpStatus(info), body: errorBody(info) };
  const headers: Record<string, string> = {};
  if (info.retryAfterS !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(info.retryAfterS)));
  if (info.code === 'quota_exceeded') headers['x-should-retry'] = 'false';
  if (Object.keys(headers).length > 0) rendered.headers = headers;
  return rendered;
}

/** `RetryInfo.retryDelay` ("34.4s") in seconds. */
function retryDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (!isObject(d)) continue;
    const delay = asString(d['retryDelay']);
    const match = delay === undefined ? null : /^(\d+(?:\.\d+)?)s$/.exec(delay);
    if (match !== null) return Number(match[1]);
  }
  return undefined;
}

/** A Google `error` object (HTTP body or in-stream chunk) → canonical error. */
export function decodeErrorObject(error: unknown, status?: number): ErrorInfo {
  const obj = isObject(error) ? error : {};
  const wireStatus = asString(obj['status']);
  const wireCode = asNumber(obj['code']);
  const http = status !== undefined && status >= 400 ? status : wireCode !== undefined && wireCode >= 400 && wireCode <= 599 ? wireCode : undefined;
  const code: ErrorCode = (wireStatus !== undefined ? FROM_WIRE[wireStatus] : undefined) ?? (http !== undefined ? codeForStatus(http) : 'upstream_error');
  const upstream = asString(obj['message']);
  const text =
    SCRUBBED[code] ??
    (upstream !== undefined && upstream.length > 0
      ? upstream.length > MAX_MESSAGE
        ? `${upstream.slice(0, MAX_MESSAGE)}…`
        : upstream
      : http !== undefined
        ? `The upstream returned HTTP ${http}.`
        : 'The upstream reported an error.');
  const finalStatus = http !== undefined && codeForStatus(http) === code ? http : ERROR_CODES[code].status;
  const info = errorInfo(code, text, { status: finalStatus });
  const retry = retryDelay(obj['details']);
  if (retry !== undefined) info.retryAfterS = retry;
  return info;
}

/** Decode an upstream error body of any shape (object, array of one, JSON text) into a canonical error. */
export function decodeError(status: number, body: unknown): ErrorInfo {
  let value = body;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    value = parsed.ok ? parsed.value : undefined;
  }
  if (Array.isArray(value) && value.length > 0) value = value[0]; // streaming endpoints may wrap it in an array
  if (isObject(value) && isObject(value['error'])) return decodeErrorObject(value['error'], status);
  const code = codeForStatus(status);
  return errorInfo(code, `The upstream returned HTTP ${status}.`, { status: status >= 400 ? status : ERROR_CODES[code].status });
}
