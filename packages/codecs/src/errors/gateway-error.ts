/**
 * The canonical error taxonomy. Every error tollgate returns has one of these codes and is
 * rendered in the caller's own wire format (HTTP body or in-stream error event).
 */
export type ErrorCode =
  | 'invalid_request'
  /** The prompt cannot fit the model's context window (400; OpenAI `context_length_exceeded`). */
  | 'context_length_exceeded'
  | 'authentication_failed'
  | 'permission_denied'
  | 'model_not_found'
  | 'not_found'
  | 'request_too_large'
  | 'unsupported_feature'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'overloaded'
  | 'unavailable'
  | 'stream_incomplete'
  | 'cancelled'
  | 'internal';

interface CodeInfo {
  status: number;
  retryable: boolean;
}

export const ERROR_CODES: Record<ErrorCode, CodeInfo> = {
  invalid_request: { status: 400, retryable: false },
  context_length_exceeded: { status: 400, retryable: false },
  authentication_failed: { status: 401, retryable: false },
  permission_denied: { status: 403, retryable: false },
  model_not_found: { status: 404, retryable: false },
  not_found: { status: 404, retryable: false },
  request_too_large: { status: 413, retryable: false },
  unsupported_feature: { status: 400, retryable: false },
  rate_limited: { status: 429, retryable: true },
  quota_exceeded: { status: 429, retryable: false },
  upstream_error: { status: 502, retryable: true },
  upstream_timeout: { status: 504, retryable: true },
  overloaded: { status: 529, retryable: true },
  unavailable: { status: 503, retryable: true },
  stream_incomplete: { status: 502, retryable: true },
  cancelled: { status: 499, retryable: false },
  internal: { status: 500, retryable: true },
};

/** An error as plain data: what travels in stream events and gets rendered to the wire. */
export interface ErrorInfo {
  code: ErrorCode;
  /** The user-facing message. Never holds secrets or upstream account details. */
  message: string;
  status: number;
  /** The offending request parameter, when there is one. */
  param?: string;
  /** Seconds after which a retry may succeed (rate limits). */
  retryAfterS?: number;
  /** Which rate limit refused (`rate_limited`): requests or tokens per window. */
  limit?: 'requests' | 'tokens';
}

const BRAND = Symbol.for('tollgate.GatewayError');

export interface GatewayErrorOptions {
  status?: number;
  retryable?: boolean;
  param?: string;
  retryAfterS?: number;
  /** Which rate limit refused (`rate_limited`): requests or tokens per window. */
  limit?: 'requests' | 'tokens';
  /** Internal detail for logs; never rendered to the caller. */
  detail?: string;
  cause?: unknown;
}

/** The one error class tollgate throws. Use `GatewayError.isInstance` across duplicate installs. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly param?: string;
  readonly retryAfterS?: number;
  readonly limit?: 'requests' | 'tokens';
  readonly detail?: string;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    if (options.param !== undefined) this.param = options.param;
    if (options.retryAfterS !== undefined) this.retryAfterS = options.retryAfterS;
    if (options.limit !== undefined) this.limit = options.limit;
    if (options.detail !== undefined) this.detail = options.detail;
  }

  static isInstance(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  /** Any thrown value as a GatewayError; unknown failures become `internal` with a generic message. */
  static from(value: unknown): GatewayError {
    if (GatewayError.isInstance(value)) return value;
    return new GatewayError('internal', 'The gateway failed to process the request.', {
      detail: value instanceof Error ? value.message : String(value),
      cause: value,
    });
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message, status: this.status };
    if (this.param !== undefined) info.param = this.param;
    if (this.retryAfterS !== undefined) info.retryAfterS = this.retryAfterS;
    if (this.limit !== undefined) info.limit = this.limit;
    return info;
  }
}

export function errorInfo(code: ErrorCode, message: string, extra: Partial<Omit<ErrorInfo, 'code' | 'message'>> = {}): ErrorInfo {
  return { code, message, status: extra.status ?? ERROR_CODES[code].status, ...extra };
}

/** The canonical code for an upstream HTTP status. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication_failed';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'not_found';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status === 529) return 'overloaded';
  if (status === 504 || status === 408) return 'upstream_timeout';
  if (status >= 500) return 'upstream_error';
  return 'upstream_error';
}

/** Codes of the timeouts the transports tollgate runs on report (undici, Node's sockets). */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Whether a failed upstream call or body read failed because a time bound ran out: an error
 * named `TimeoutError` (what `AbortSignal.timeout` aborts with, and what the Node transport's
 * own deadlines throw), a transport's timeout code, or a GatewayError `upstream_timeout` —
 * looked for in the error and what caused it (a `fetch` TypeError wraps its cause).
 */
export function isTimeoutError(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e = current as { name?: unknown; code?: unknown; cause?: unknown };
    if (e.name === 'TimeoutError' || (typeof e.code === 'string' && TIMEOUT_CODES.has(e.code))) return true;
    if (GatewayError.isInstance(current) && current.code === 'upstream_timeout') return true;
    current = e.cause;
  }
  return false;
}
