import { GatewayError, getCodec, hasCodec, type ErrorInfo, type WireFormat } from '@tollgate/codecs';

/** Render a canonical error as an HTTP response in the caller's wire format. */
export function errorResponse(error: ErrorInfo | GatewayError, format: WireFormat | null, extraHeaders: Record<string, string> = {}): Response {
  const info = GatewayError.isInstance(error) ? error.toInfo() : error;
  const codec = getCodec(format !== null && hasCodec(format) ? format : 'openai_chat');
  const rendered = codec.renderError(info);
  const headers = new Headers({ 'content-type': 'application/json', ...rendered.headers, ...extraHeaders });
  if (info.retryAfterS !== undefined && !headers.has('retry-after')) headers.set('retry-after', String(info.retryAfterS));
  return new Response(JSON.stringify(rendered.body), { status: rendered.status, headers });
}

/** Which format a request that matched no entry route most likely speaks, for its error body. */
export function guessFormat(request: Request, pathname: string): WireFormat {
  if (pathname.includes(':generateContent') || pathname.includes(':streamGenerateContent') || pathname.startsWith('/v1beta/')) {
    return 'gemini_generate_content';
  }
  if (request.headers.has('anthropic-version') || request.headers.has('x-api-key') || pathname.endsWith('/messages')) {
    return 'anthropic_messages';
  }
  return 'openai_chat';
}
