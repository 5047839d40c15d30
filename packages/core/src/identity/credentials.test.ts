import { describe, expect, it } from 'vitest';
import { extractCredential } from './credentials.js';

const req = (headers: Record<string, string> = {}, query = '') => new Request(`https://gw.example.com/v1/models${query}`, { headers });

describe('identity: extractCredential', () => {
  it('reads each vendor SDK location', () => {
    expect(extractCredential(req({ authorization: 'Bearer tok' }))).toEqual({ ok: true, secret: 'tok', source: 'authorization' });
    expect(extractCredential(req({ authorization: 'bearer  tok ' }))).toEqual({ ok: true, secret: 'tok', source: 'authorization' });
    expect(extractCredential(req({ 'x-api-key': 'tok' }))).toEqual({ ok: true, secret: 'tok', source: 'x-api-key' });
    expect(extractCredential(req({ 'x-goog-api-key': 'tok' }))).toEqual({ ok: true, secret: 'tok', source: 'x-goog-api-key' });
    expect(extractCredential(req({}, '?alt=sse&key=tok'))).toEqual({ ok: true, secret: 'tok', source: 'query' });
  });

  it('reports missing when nothing is presented, ignoring identity-looking headers', () => {
    expect(extractCredential(req())).toEqual({ ok: false, reason: 'missing' });
    expect(extractCredential(req({ 'x-tollgate-user': 'admin', 'x-user-id': 'root', cookie: 'k=v' }))).toEqual({ ok: false, reason: 'missing' });
  });

  it('accepts the same key in several places, refuses different ones', () => {
    expect(extractCredential(req({ authorization: 'Bearer a', 'x-api-key': 'a' }))).toMatchObject({ ok: true, secret: 'a' });
    expect(extractCredential(req({ authorization: 'Bearer a', 'x-api-key': 'b' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({ 'x-goog-api-key': 'a' }, '?key=b'))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({}, '?key=a&key=b'))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses non-Bearer schemes, empty, oversized and non-token values', () => {
    expect(extractCredential(req({ authorization: 'Basic dXNlcjpwYXNz' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({ authorization: 'Bearer' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({ 'x-api-key': '' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({ 'x-api-key': 'a b' }))).toEqual({ ok: false, reason: 'malformed' });
    expect(extractCredential(req({ 'x-api-key': 'x'.repeat(9000) }))).toEqual({ ok: false, reason: 'malformed' });
  });
});
