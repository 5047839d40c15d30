import type { RenderedError } from '../codec.js';
import { codeForStatus, ERROR_CODES, type ErrorCode, type ErrorInfo } from '../errors/gateway-error.js';
import { asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import type { WireErrorBody } from './schemas.js';

interface Shape {
  type: string;
  code: string | null;
  /** The status an OpenAI client expects, when it differs from the canonical one. */
  status?: number;
}

/** How OpenAI itself labels each kind of failure. */
const SHAPES: Record<ErrorCode, Shape> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  context_length_exceeded: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  authentication_failed: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission_denied: { type: 'invalid_request_error', code: 'permission_denied' },
  model_not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  not_found: { type: 'invalid_request_error', code: 'not_found' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  unsupported_feature: { type: 'invalid_request_error', code: 'unsupported_parameter' },
  rate_limited: { type: 'requests', code: 'rate_limit_exceeded' },
  quota_exceeded: { type: 'insufficient_quota', code: 'insufficient_quota' },
  upstream_error: { type: 'server_error', code: null },
  upstream_timeout: { type: 'server_error', code: 'timeout' },
  // OpenAI clients do not know 529: they retry 503s.
  overloaded: { type: 'server_error', code: 'overloaded', status: 503 },
  unavailable: { type: 'server_error', code: 'service_unavailable', status: 503 },
  stream_incomplete: { type: 'server_error', code: 'stream_incomplete' },
  cancelled: { type: 'invalid_request_error', code: 'request_cancelled' },
  internal: { type: 'server_error', code: null },
};

/** The `{ error: {...} }` body for a canonical error (also used inside streams). */
export function errorBody(info: ErrorInfo): WireErrorBody {
  const shape = SHAPES[info.code] ?? SHAPES.internal;
  // OpenAI names the rate limit that refused in `type`: `requests` or `tokens`.
  const type = info.code === 'rate_limited' && info.limit !== undefined ? info.limit : shape.type;
  return { error: { message: info.message, type, param: info.param ?? null, code: shape.code } };
}

export function renderError(info: ErrorInfo): RenderedError {
  const shape = SHAPES[info.code] ?? SHAPES.internal;
  const canonical = ERROR_CODES[info.code]?.status ?? 500;
  let status = shape.status ?? (info.status >= 400 && info.status <= 599 ? info.status : canonical);
  if (status === 529) status = 503;
  const rendered: RenderedError = { status, body: errorBody(info) as unknown as Record<string, unknown> };
  const headers: Record<string, string> = {};
  if (info.retryAfterS !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(info.retryAfterS)));
  // A spend cap will not clear by waiting a few seconds; the OpenAI SDKs honour this header.
  if (info.code === 'quota_exceeded') headers['x-should-retry'] = 'false';
  if (Object.keys(headers).length > 0) rendered.headers = headers;
  return rendered;
}

const BY_WIRE_CODE: Record<string, ErrorCode> = {
  invalid_api_key: 'authentication_failed',
  invalid_authentication: 'authentication_failed',
  authentication_error: 'authentication_failed',
  permission_denied: 'permission_denied',
  permission_error: 'permission_denied',
  model_not_found: 'model_not_found',
  insufficient_quota: 'quota_exceeded',
  billing_hard_limit_reached: 'quota_exceeded',
  rate_limit_exceeded: 'rate_limited',
  requests: 'rate_limited',
  tokens: 'rate_limited',
  context_length_exceeded: 'context_length_exceeded',
  request_too_large: 'request_too_large',
  server_overloaded: 'overloaded',
  overloaded: 'overloaded',
  service_unavailable: 'unavailable',
  timeout: 'upstream_timeout',
};

const MAX_MESSAGE = 2000;

/** Remove account details an upstream message may carry (key fragments, org and project ids). */
export function scrubMessage(message: string): string {
  const scrubbed = message
    .replace(/\b(sk|rk)-[A-Za-z0-9_*-]{4,}/g, '$1-***')
    .replace(/\borg-[A-Za-z0-9]{6,}/g, 'org-***')
    .replace(/\bproj_[A-Za-z0-9]{6,}/g, 'proj_***');
  return scrubbed.length > MAX_MESSAGE ? `${scrubbed.slice(0, MAX_MESSAGE)}…` : scrubbed;
}

function errorObject(body: unknown): JsonObject | string | undefined {
  let value = body;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    if (!parsed.ok) return value.trim() === '' ? undefined : value;
    value = parsed.value;
  }
  if (!isObject(value)) return undefined;
  if (isObject(value.error)) return value.error;
  if (typeof value.error === 'string') return value.error;
  if (typeof value.message === 'string') return value;
  return undefined;
}

/** A canonical error from an OpenAI error body (or anything an upstream sent). */
export function decodeError(status: number, body: unknown): ErrorInfo {
  const found = errorObject(body);
  const error: JsonObject = typeof found === 'string' ? { message: found } : (found ?? {});
  const wireCode = asString(error.code);
  const wireType = asString(error.type);
  let code: ErrorCode =
    (wireCode !== undefined ? BY_WIRE_CODE[wireCode] : undefined) ??
    (wireType !== undefined ? BY_WIRE_CODE[wireType] : undefined) ??
    (status >= 400 ? codeForStatus(status) : wireType === 'invalid_request_error' ? 'invalid_request' : 'upstream_error');
  if (code === 'rate_limited' && wireType === 'insufficient_quota') code = 'quota_exceeded';
  const rawMessage = asString(error.message);
  const message =
    rawMessage !== undefined && rawMessage !== ''
      ? scrubMessage(rawMessage)
      : status >= 400
        ? `The upstream returned HTTP ${status}.`
        : 'The upstream reported an error.';
  const info: ErrorInfo = { code, message, status: status >= 400 && status <= 599 ? status : ERROR_CODES[code].status };
  const param = asString(error.param);
  if (param !== undefined) info.param = param;
  if (code === 'rate_limited' && (wireType === 'tokens' || wireType === 'requests')) info.limit = wireType;
  return info;
}
