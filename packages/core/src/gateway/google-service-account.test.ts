import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/codecs/base';
import { checkGrant, testServiceAccount, type TestServiceAccount } from '../../../../test/support/google-sa.js';
import { AccessTokens, REFRESH_MARGIN_MS } from './access-tokens.js';
import { createGoogleServiceAccountSigner, fetchServiceAccountToken, googleServiceAccountSigner } from './google-service-account.js';
import type { UpstreamFetch } from './request.js';

const TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = ['https://www.googleapis.com/auth/cloud-platform'];

/** A token endpoint as a fetch: verifies the grant, answers what `answer` says. */
function tokenEndpoint(
  account: TestServiceAccount,
  answer: (n: number) => Response | Promise<Response> = (n) => Response.json({ access_token: `ya29.token-${n}`, expires_in: 3599, token_type: 'Bearer' }),
) {
  const calls: Array<{ url: string; scope?: string; ok: boolean }> = [];
  const fetch: UpstreamFetch = async (url, init) => {
    const check = await checkGrant(String(init.body as string), account, TOKEN_URI);
    calls.push({ url, ok: check.ok, ...(check.scope === undefined ? {} : { scope: check.scope }) });
    if (!check.ok) return Response.json({ error: 'invalid_grant', error_description: `Invalid JWT: ${check.reason}` }, { status: 400 });
    expect(init.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    return answer(calls.length);
  };
  return { calls, fetch };
}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!GatewayError.isInstance(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe('Google service account tokens', () => {
  it('signs the JWT grant with the key (RS256, iss, aud, scope, one hour, kid) and reads the access token', async () => {
    const account = await testServiceAccount(TOKEN_URI);
    const endpoint = tokenEndpoint(account);
    const token = await fetchServiceAccountToken(
      account.keyJson,
      ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/userinfo.email'],
      endpoint.fetch,
      Date.now(),
    );
    expect(token).toEqual({ accessToken: 'ya29.token-1', expiresInS: 3599 });
    expect(endpoint.calls).toEqual([
      { url: TOKEN_URI, ok: true, scope: 'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email' },
    ]);
  });

  it('a token endpoint that answers 400 (an expired or deleted key: invalid_grant): a 502 that names neither key nor token', async () => {
    const account = await testServiceAccount(TOKEN_URI);
    const endpoint = tokenEndpoint(account, () =>
      Response.json({ error: 'invalid_grant', error_description: 'Invalid JWT Signature. tollgate-test@acme-prod.iam.gserviceaccount.com' }, { status: 400 }),
    );
    const e = await failureOf(googleServiceAccountSigner.fetchToken(account.keyJson, SCOPE, endpoint.fetch, Date.now()));
    expect(e).toMatchObject({
      code: 'upstream_error',
      status: 502,
      message: 'The gateway could not obtain an access token for the upstream.',
      detail: 'token endpoint: 400 invalid_grant',
    });
    expect(endpoint.calls).toHaveLength(1); // tried once, never in a loop
    const everything = JSON.stringify({ message: e.message, detail: e.detail });
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toContain(account.clientEmail);
  });

  it('a token endpoint that hangs: given up after the timeout, no retry', async () => {
    const account = await testServiceAccount(TOKEN_URI);
    let calls = 0;
    const hang: UpstreamFetch = (_url, init) =>
      new Promise((_, reject) => {
        calls++;
        init.signal!.addEventListener('abort', () => reject(init.signal!.reason));
      });
    const started = Date.now();
    const e = await failureOf(createGoogleServiceAccountSigner({ tokenTimeoutMs: 150 }).fetchToken(account.keyJson, SCOPE, hang, Date.now()));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(e).toMatchObject({ code: 'upstream_error', detail: 'token endpoint: no answer within 150 ms' });
    expect(calls).toBe(1);
  });

  it('a key that is not one: not JSON, an http token_uri elsewhere, a private key that cannot sign', async () => {
    const account = await testServiceAccount(TOKEN_URI);
    const never: UpstreamFetch = async () => {
      throw new Error('must not be called');
    };
    expect((await failureOf(fetchServiceAccountToken('{nope', SCOPE, never, 0))).detail).toBe('service account key: not JSON');
    const http = JSON.stringify({ ...JSON.parse(account.keyJson), token_uri: 'http://tokens.example.com/token' });
    expect((await failureOf(fetchServiceAccountToken(http, SCOPE, never, 0))).detail).toBe('service account key: token_uri must be https');
    const broken = JSON.stringify({ ...JSON.parse(account.keyJson), private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' });
    const e = await failureOf(fetchServiceAccountToken(broken, SCOPE, never, 0));
    expect(e.detail).toMatch(/cannot sign/);
    expect(e.message).not.toContain('PRIVATE');
    expect((await failureOf(fetchServiceAccountToken(JSON.stringify({ type: 'authorized_user' }), SCOPE, never, 0))).detail).toMatch(/not service_account/);
  });
});

describe('the access token cache', () => {
  it('one exchange for many concurrent callers; cached until a minute before expiry, then refreshed once', async () => {
    let now = 1_000_000;
    const tokens = new AccessTokens(() => now);
    let exchanges = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const exchange = async () => {
      exchanges++;
      await gate;
      return { accessToken: `t${exchanges}`, expiresInS: 3600 };
    };
    const many = Array.from({ length: 1000 }, () => tokens.get('k', exchange));
    release();
    expect(new Set(await Promise.all(many))).toEqual(new Set(['t1']));
    expect(exchanges).toBe(1);
    expect(tokens.stats).toEqual({ exchanges: 1, hits: 999 });
    now += 3600_000 - REFRESH_MARGIN_MS - 1;
    expect(await tokens.get('k', exchange)).toBe('t1');
    now += 1;
    const [a, b] = await Promise.all([tokens.get('k', exchange), tokens.get('k', exchange)]);
    expect([a, b]).toEqual(['t2', 't2']);
    expect(exchanges).toBe(2);
  });

  it('a failed exchange is shared by the callers waiting for it, and the next call tries again', async () => {
    const tokens = new AccessTokens(() => 0);
    let n = 0;
    const failing = async () => {
      n++;
      throw new Error('down');
    };
    const results = await Promise.allSettled([tokens.get('k', failing), tokens.get('k', failing), tokens.get('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(n).toBe(1);
    await tokens.get('k', failing).catch(() => {});
    expect(n).toBe(2);
  });

  it('dropped tokens are exchanged again', async () => {
    const tokens = new AccessTokens(() => 0);
    let n = 0;
    const exchange = async () => ({ accessToken: `t${++n}`, expiresInS: 3600 });
    expect(await tokens.get('SECRET\u0000scope', exchange)).toBe('t1');
    tokens.drop('SECRET\u0000');
    expect(await tokens.get('SECRET\u0000scope', exchange)).toBe('t2');
  });
});
