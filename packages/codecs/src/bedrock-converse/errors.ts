/**
 * Bedrock errors ⇄ canonical errors. Over HTTP, Bedrock answers `{ "message": … }` with the
 * exception name in the `x-amzn-errortype` header (`ValidationException:http://…`); inside a
 * stream, an exception frame names it in `:exception-type` (`throttlingException`).
 */
import type { ErrorHeaders, RenderedError } from '../codec.js';
import { codeForStatus, ERROR_CODES, errorInfo, type ErrorCode, type ErrorInfo } from '../errors/gateway-error.js';
import { asString, isObject, parseJson } from '../shared/guards.js';

/** The exception an AWS client expects for each canonical code, and the HTTP status when it differs. */
const WIRE: Record<ErrorCode, { type: string; http?: number }> = {
  invalid_request: { type: 'ValidationException' },
  // Bedrock says "Input is too long for requested model." as a ValidationException.
  context_length_exceeded: { type: 'ValidationException' },
  unsupported_feature: { type: 'ValidationException' },
  request_too_large: { type: 'ValidationException' },
  authentication_failed: { type: 'UnrecognizedClientException' },
  permission_denied: { type: 'AccessDeniedException' },
  model_not_found: { type: 'ResourceNotFoundException' },
  not_found: { type: 'ResourceNotFoundException' },
  rate_limited: { type: 'ThrottlingException' },
  // AWS clients retry every 429; a spent budget is a 400 they do not retry, as Bedrock sends it.
  quota_exceeded: { type: 'ServiceQuotaExceededException', http: 400 },
  upstream_error: { type: 'InternalServerException' },
  stream_incomplete: { type: 'InternalServerException' },
  internal: { type: 'InternalServerException' },
  upstream_timeout: { type: 'ModelTimeoutException' },
  // AWS clients know 503 ServiceUnavailableException, not 529.
  overloaded: { type: 'ServiceUnavailableException', http: 503 },
  unavailable: { type: 'ServiceUnavailableException' },
  cancelled: { type: 'InternalServerException' },
};

/** Exception name → canonical code. */
const FROM_WIRE: Record<string, ErrorCode> = {
  ValidationException: 'invalid_request',
  AccessDeniedException: 'permission_denied',
  UnrecognizedClientException: 'authentication_failed',
  InvalidSignatureException: 'authentication_failed',
  IncompleteSignatureException: 'authentication_failed',
  MissingAuthenticationTokenException: 'authentication_failed',
  ExpiredTokenException: 'authentication_failed',
  ResourceNotFoundException: 'not_found',
  ThrottlingException: 'rate_limited',
  ModelNotReadyException: 'rate_limited',
  ServiceQuotaExceededException: 'quota_exceeded',
  ServiceUnavailableException: 'unavailable',
  ModelTimeoutException: 'upstream_timeout',
  ModelErrorException: 'upstream_error',
  ModelStreamErrorException: 'upstream_error',
  InternalServerException: 'upstream_error',
};

/** These concern the gateway's own AWS credentials, not the caller: never relay AWS's text. */
const SCRUBBED: Partial<Record<ErrorCode, string>> = {
  authentication_failed: 'The upstream provider rejected the gateway credentials.',
  permission_denied: 'The upstream provider denied the gateway permission for this request.',
};

const MAX_MESSAGE = 2000;

function message(info: ErrorInfo): string {
  if (info.code === 'quota_exceeded' && !/budget|quota/i.test(info.message)) return `Your budget is exhausted: ${info.message}`;
  return info.message;
}

/** `ValidationException:http://…`, `com.amazon.coral#ValidationException`, `throttlingException` → `ThrottlingException`. */
export function exceptionName(raw: string): string {
  const bare = raw.split(':')[0]!.split('#').pop()!.trim();
  return bare.length === 0 ? bare : bare[0]!.toUpperCase() + bare.slice(1);
}

/** The HTTP error answer for a canonical error: `{ message }` and `x-amzn-errortype`. */
export function renderError(info: ErrorInfo): RenderedError {
  const wire = WIRE[info.code];
  const headers: Record<string, string> = { 'x-amzn-errortype': wire.type };
  if (info.retryAfterS !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(info.retryAfterS)));
  if (info.code === 'quota_exceeded') headers['x-should-retry'] = 'false';
  return { status: wire.http ?? info.status, body: { message: message(info) }, headers };
}

/** The exception frame of a stream: its `:exception-type` (lowerCamelCase) and body. */
export function streamException(info: ErrorInfo): { type: string; body: { message: string } } {
  const type = WIRE[info.code].type;
  return { type: type[0]!.toLowerCase() + type.slice(1), body: { message: message(info) } };
}

function decodeNamed(name: string | undefined, status: number | undefined, text: string | undefined): ErrorInfo {
  let code: ErrorCode | undefined = name === undefined ? undefined : FROM_WIRE[exceptionName(name)];
  code ??= status === undefined ? 'upstream_error' : codeForStatus(status);
  if (
    (code === 'invalid_request' || code === 'not_found') &&
    text !== undefined &&
    /model identifier is invalid|model.*(not found|does not exist)/i.test(text)
  ) {
    code = 'model_not_found';
  }
  const scrubbed = SCRUBBED[code];
  const shown = scrubbed ?? (text !== undefined && text.length > 0 ? text.slice(0, MAX_MESSAGE) : `The upstream provider returned an error (${code}).`);
  const finalStatus = status !== undefined && status >= 400 && codeForStatus(status) === code ? status : ERROR_CODES[code].status;
  return errorInfo(code, shown, { status: finalStatus });
}

function messageOf(value: unknown): string | undefined {
  if (!isObject(value)) return typeof value === 'string' && value.length > 0 && value.length < MAX_MESSAGE ? value : undefined;
  return asString(value['message']) ?? asString(value['Message']);
}

/** An upstream error answer (any body; the exception name from `x-amzn-errortype` or `__type`) → canonical error. */
export function decodeError(status: number, body: unknown, headers?: ErrorHeaders): ErrorInfo {
  let value = body;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    if (parsed.ok) value = parsed.value;
  }
  const name = headers?.get('x-amzn-errortype') ?? (isObject(value) ? (asString(value['__type']) ?? asString(value['code'])) : undefined) ?? undefined;
  return decodeNamed(name, status, messageOf(value));
}

/** An exception frame inside a stream → canonical error. */
export function decodeStreamException(type: string | undefined, data: string): ErrorInfo {
  const parsed = parseJson(data);
  return decodeNamed(type, undefined, messageOf(parsed.ok ? parsed.value : undefined));
}
