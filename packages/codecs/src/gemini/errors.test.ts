import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../../test/support/fixtures.js';
import { errorInfo, type ErrorCode } from '../errors/gateway-error.js';
import { decodeError, renderError } from './index.js';

describe('gemini_generate_content errors', () => {
  it('renders every canonical code as { error: { code, message, status } } with the status Google uses', () => {
    const expected: Record<ErrorCode, [number, string]> = {
      invalid_request: [400, 'INVALID_ARGUMENT'],
      context_length_exceeded: [400, 'INVALID_ARGUMENT'],
      unsupported_feature: [400, 'INVALID_ARGUMENT'],
      request_too_large: [413, 'INVALID_ARGUMENT'],
      authentication_failed: [401, 'UNAUTHENTICATED'],
      permission_denied: [403, 'PERMISSION_DENIED'],
      model_not_found: [404, 'NOT_FOUND'],
      not_found: [404, 'NOT_FOUND'],
      rate_limited: [429, 'RESOURCE_EXHAUSTED'],
      quota_exceeded: [429, 'RESOURCE_EXHAUSTED'],
      upstream_error: [502, 'INTERNAL'],
      stream_incomplete: [502, 'INTERNAL'],
      internal: [500, 'INTERNAL'],
      upstream_timeout: [504, 'DEADLINE_EXCEEDED'],
      overloaded: [503, 'UNAVAILABLE'],
      unavailable: [503, 'UNAVAILABLE'],
      cancelled: [499, 'CANCELLED'],
    };
    for (const [code, [status, name]] of Object.entries(expected) as Array<[ErrorCode, [number, string]]>) {
      const rendered = renderError(errorInfo(code, 'msg'));
      expect(rendered.status, code).toBe(status);
      expect(rendered.body, code).toEqual({
        error: { code: status, message: code === 'quota_exceeded' ? 'Your budget is exhausted: msg' : 'msg', status: name },
      });
    }
  });

  it('rate limits carry retry-after and RetryInfo; a spent budget says do not retry', () => {
    const rate = renderError(errorInfo('rate_limited', 'Slow down', { retryAfterS: 2.2 }));
    expect(rate.headers).toEqual({ 'retry-after': '3' });
    expect(rate.body).toEqual({
      error: {
        code: 429,
        message: 'Slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }],
      },
    });
    expect(renderError(errorInfo('quota_exceeded', 'Monthly budget reached')).headers).toEqual({ 'x-should-retry': 'false' });
  });

  it('decodes the recorded 429 with its retry delay', () => {
    expect(decodeError(429, fixtureJson('gemini/error-429-resource-exhausted.json'))).toEqual({
      code: 'rate_limited',
      message: 'You exceeded your current quota, please check your plan.',
      status: 429,
      retryAfterS: 34.4,
    });
  });

  it('decodes any shape: JSON text, an array of one, unknown status, no body', () => {
    expect(decodeError(400, '{"error":{"code":400,"message":"Bad","status":"INVALID_ARGUMENT"}}')).toEqual({
      code: 'invalid_request',
      message: 'Bad',
      status: 400,
    });
    expect(decodeError(503, [{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }])).toMatchObject({
      code: 'unavailable',
      status: 503,
    });
    expect(decodeError(500, { error: { code: 500, message: 'x', status: 'SOMETHING_NEW' } })).toMatchObject({ code: 'upstream_error', status: 500 });
    expect(decodeError(404, 'not json')).toEqual({ code: 'not_found', message: 'The upstream returned HTTP 404.', status: 404 });
    expect(decodeError(504, undefined)).toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it("never relays Google's text about the gateway's own credentials", () => {
    const info = decodeError(400, {
      error: { code: 400, message: 'API key not valid. Please pass a valid API key. AIzaSyD-secret', status: 'UNAUTHENTICATED' },
    });
    expect(info.code).toBe('authentication_failed');
    expect(info.message).not.toContain('AIza');
    expect(decodeError(403, { error: { code: 403, message: 'Project 1234 has no access', status: 'PERMISSION_DENIED' } }).message).not.toContain('1234');
  });
});
