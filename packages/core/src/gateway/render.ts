import { GatewayError, type CodecTable, type ErrorInfo, type WireFormat } from '@tollgate/codecs/base';
import { errorCodec } from './codecs.js';
import type { GatewayRequest } from './request.js';

const COMPLETE_BODY = Symbol.for('tollgate.completeBody');

/**
 * A response whose whole body is already in memory (non-stream answers, errors). The bytes are
 * also attached under a well-known symbol so a server adapter can write them in one call
 * instead of reading the body stream back; any other consumer just reads the body as usual.
 */
export function completeResponse(body: string, init: ResponseInit): Response {
  const bytes = textEncoder.encode(body);
  const response = new Response(bytes, init);
  Object.defineProperty(response, COMPLETE_BODY, { value: bytes });
  return response;
}

/** The bytes of a response made by `completeResponse`, if it is one and its body is unread. */
export function completeBodyOf(response: Response): Uint8Array | undefined {
  if (response.bodyUsed) return undefined;
  return (response as unknown as { [COMPLETE_BODY]?: Uint8Array })[COMPLETE_BODY];
}

const textEncoder = new TextEncoder();

/**
 * Render a canonical error as an HTTP response in the caller's wire format (among the gateway's
 * codecs; OpenAI's shape, or the first codec's, when it has none for that format).
 */
export function errorResponse(
  codecs: CodecTable,
  error: ErrorInfo | GatewayError,
  format: WireFormat | null,
  extraHeaders: Record<string, string> = {},
): Response {
  const info = GatewayError.isInstance(error) ? error.toInfo() : error;
  const rendered = errorCodec(codecs, format).renderError(info);
  const headers = new Headers({ 'content-type': 'application/json', ...rendered.headers, ...extraHeaders });
  if (info.retryAfterS !== undefined && !headers.has('retry-after')) headers.set('retry-after', String(info.retryAfterS));
  return completeResponse(JSON.stringify(rendered.body), { status: rendered.status, headers });
}

/** Which format a request that matched no entry route most likely speaks, for its error body. */
export function guessFormat(request: Pick<GatewayRequest, 'headers'>, pathname: string): WireFormat {
  if (pathname.includes(':generateContent') || pathname.includes(':streamGenerateContent') || pathname.startsWith('/v1beta/')) {
    return 'gemini_generate_content';
  }
  if (request.headers.has('anthropic-version') || request.headers.has('x-api-key') || pathname.endsWith('/messages')) {
    return 'anthropic_messages';
  }
  return 'openai_chat';
}
