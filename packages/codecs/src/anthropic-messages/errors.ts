import type { RenderedError } from '../codec.js';
import { codeForStatus, ERROR_CODES, errorInfo, type ErrorCode, type ErrorInfo } from '../errors/gateway-error.js';
import { asObject, asString, parseJson } from '../shared/guards.js';

/** Anthropic's error `type` for each canonical code. */
const WIRE_TYPE: Record<ErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  unsupported_feature: 'invalid_request_error',
  authentication_failed: 'authentication_error',
  permission_denied: 'permission_error',
  model_not_found: 'not_found_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limited: 'rate_limit_error',
  quota_exceeded: 'rate_limit_error',
  upstream_error: 'api_error',
  upstream_timeout: 'api_error',
  overloaded: 'overloaded_error',
  unavailable: 'api_error',
  stream_incomplete: 'api_error',
  cancelled: 'api_error',
  internal: 'api_error',
};

/** Anthropic error `type` → canonical code. */
const FROM_WIRE: Record<string, ErrorCode> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication_failed',
  permission_error: 'permission_denied',
  billing_error: 'upstream_error',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limited',
  api_error: 'upstream_error',
  timeout_error: 'upstream_timeout',
  overloaded_error: 'overloaded',
};

/**
 * Messages shown instead of the upstream's own text: these errors concern the gateway's upstream
 * account (its key, its permissions, its billing), not the caller.
 */
const SCRUBBED: Partial<Record<string, string>> = {
  authentication_error: 'The upstream provider rejected the gateway credentials.',
  permission_error: 'The upstream provider denied the gateway permission for this request.',
  billing_error: 'The upstream provider account cannot serve this request.',
};

function message(info: ErrorInfo): string {
  if (info.code === 'quota_exceeded' && !/budget|quota/i.test(info.message)) {
    return `Your budget is exhausted: ${info.message}`;
  }
  return info.message;
}

/** The in-stream and HTTP error body: `{ type: 'error', error: { type, message } }`. */
export function errorBody(info: ErrorInfo): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: WIRE_TYPE[info.code], message: message(info) } };
}

export function renderError(info: ErrorInfo): RenderedError {
  const rendered: RenderedError = { status: info.status, body: errorBody(info) };
  const headers: Record<string, string> = {};
  if (info.retryAfterS !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(info.retryAfterS)));
  // A spent budget does not come back by retrying soon; tell the SDK not to sleep and retry.
  if (info.code === 'quota_exceeded') headers['x-should-retry'] = 'false';
  if (Object.keys(headers).length > 0) rendered.headers = headers;
  return rendered;
}

/** An Anthropic `error` object (from an HTTP body or an in-stream event) → canonical error. */
export function decodeErrorObject(error: unknown, status?: number): ErrorInfo {
  const obj = asObject(error);
  const wireType = obj === undefined ? undefined : asString(obj['type']);
  const upstreamMessage = obj === undefined ? undefined : asString(obj['message']);
  let code: ErrorCode | undefined = wireType === undefined ? undefined : FROM_WIRE[wireType];
  if (code === undefined) code = status === undefined ? 'upstream_error' : codeForStatus(status);
  if (code === 'not_found' && upstreamMessage !== undefined && /^model:/i.test(upstreamMessage)) code = 'model_not_found';
  const scrubbed = wireType === undefined ? undefined : SCRUBBED[wireType];
  const text = scrubbed ?? (upstreamMessage !== undefined && upstreamMessage.length > 0 ? upstreamMessage : defaultMessage(code));
  const finalStatus = status !== undefined && status >= 400 && codeForStatus(status) === code ? status : ERROR_CODES[code].status;
  return errorInfo(code, text, { status: finalStatus });
}

/** Decode an upstream error body of any shape (object, JSON text, anything) into a canonical error. */
export function decodeError(status: number, body: unknown): ErrorInfo {
  let value = body;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    value = parsed.ok ? parsed.value : undefined;
  }
  const obj = asObject(value);
  const inner = obj === undefined ? undefined : asObject(obj['error']);
  if (inner !== undefined) return decodeErrorObject(inner, status);
  const code = codeForStatus(status);
  return errorInfo(code, defaultMessage(code), { status: status >= 400 ? status : ERROR_CODES[code].status });
}

function defaultMessage(code: ErrorCode): string {
  switch (code) {
    case 'overloaded':
      return 'The upstream provider is overloaded.';
    case 'rate_limited':
      return 'The upstream provider rate-limited the request.';
    case 'upstream_timeout':
      return 'The upstream provider timed out.';
    default:
      return `The upstream provider returned an error (${code}).`;
  }
}
