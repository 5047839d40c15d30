import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../../test/support/fixtures.js';
import { errorInfo, type ErrorCode } from '../errors/gateway-error.js';
import { anthropicMessagesCodec as codec } from './index.js';

describe('anthropic_messages error rendering', () => {
  const cases: Array<[ErrorCode, string, number]> = [
    ['invalid_request', 'invalid_request_error', 400],
    ['unsupported_feature', 'invalid_request_error', 400],
    ['authentication_failed', 'authentication_error', 401],
    ['permission_denied', 'permission_error', 403],
    ['model_not_found', 'not_found_error', 404],
    ['not_found', 'not_found_error', 404],
    ['request_too_large', 'request_too_large', 413],
    ['rate_limited', 'rate_limit_error', 429],
    ['quota_exceeded', 'rate_limit_error', 429],
    ['internal', 'api_error', 500],
    ['upstream_error', 'api_error', 502],
    ['upstream_timeout', 'api_error', 504],
    ['stream_incomplete', 'api_error', 502],
    ['overloaded', 'overloaded_error', 529],
  ];

  it.each(cases)('%s → %s (%i)', (code, type, status) => {
    const rendered = codec.renderError(errorInfo(code, 'Something happened.'));
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
  });

  it('sets retry-after when retryAfterS is known', () => {
    const rendered = codec.renderError(errorInfo('rate_limited', 'Slow down.', { retryAfterS: 2.2 }));
    expect(rendered.headers).toEqual({ 'retry-after': '3' });
    expect(codec.renderError(errorInfo('invalid_request', 'x')).headers).toBeUndefined();
  });

  it('says the budget is exhausted for quota_exceeded, and tells the SDK not to retry', () => {
    const rendered = codec.renderError(errorInfo('quota_exceeded', 'Spend limit frontier-monthly reached.'));
    expect((rendered.body['error'] as { message: string }).message).toMatch(/budget is exhausted/i);
    expect(rendered.headers).toEqual({ 'x-should-retry': 'false' });
  });
});

describe('anthropic_messages error decoding', () => {
  it('decodes the recorded 400 body', () => {
    const info = codec.decodeError(400, fixtureJson('anthropic-messages/error-400-invalid-request.json'));
    expect(info).toEqual({
      code: 'invalid_request',
      status: 400,
      message: "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.",
    });
  });

  it('maps every Anthropic error type', () => {
    const d = (status: number, type: string, message = 'm') => codec.decodeError(status, { type: 'error', error: { type, message } });
    expect(d(429, 'rate_limit_error')).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(d(529, 'overloaded_error')).toMatchObject({ code: 'overloaded', status: 529 });
    expect(d(500, 'api_error')).toMatchObject({ code: 'upstream_error', status: 500 });
    expect(d(504, 'timeout_error')).toMatchObject({ code: 'upstream_timeout', status: 504 });
    expect(d(413, 'request_too_large')).toMatchObject({ code: 'request_too_large', status: 413 });
    expect(d(404, 'not_found_error', 'model: claude-nope')).toMatchObject({ code: 'model_not_found', status: 404 });
    expect(d(404, 'not_found_error', 'no such file')).toMatchObject({ code: 'not_found' });
  });

  it('never relays upstream account details for credential, permission or billing errors', () => {
    const auth = codec.decodeError(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key sk-ant-123' } });
    expect(auth.code).toBe('authentication_failed');
    expect(auth.message).not.toContain('sk-ant');
    const billing = codec.decodeError(400, { type: 'error', error: { type: 'billing_error', message: 'Your credit balance is too low' } });
    expect(billing.message).not.toContain('credit');
  });

  it('falls back to the HTTP status for bodies of any other shape', () => {
    expect(codec.decodeError(503, '<html>busy</html>')).toMatchObject({ code: 'unavailable', status: 503 });
    expect(codec.decodeError(529, null)).toMatchObject({ code: 'overloaded', status: 529 });
    expect(codec.decodeError(429, '{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}')).toMatchObject({
      code: 'rate_limited',
      message: 'slow',
    });
    expect(codec.decodeError(500, { unexpected: true })).toMatchObject({ code: 'upstream_error', status: 500 });
  });
});
