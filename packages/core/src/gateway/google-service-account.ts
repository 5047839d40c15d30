/**
 * Google service account credentials (Vertex AI): the OAuth 2.0 JWT bearer grant. A JWT
 * (RS256, `iss` the client email, `scope`, `aud` the token URI, one hour) is signed with the
 * key's private key (jose) and exchanged at the key's `token_uri` for an access token. The key
 * and the token never appear in an error message, a log detail or a record.
 */
import { GatewayError } from '@tollgate/codecs/base';
import { eachChunk, type UpstreamFetch } from './request.js';
import type { AccessToken, GoogleServiceAccountSigner } from './signers.js';

type JoseSign = typeof import('./jose-sign.js');
let jose: Promise<JoseSign> | undefined;

function loadJose(): Promise<JoseSign> {
  jose ??= import('./jose-sign.js').catch((error: unknown) => {
    jose = undefined;
    throw error;
  });
  return jose;
}

/** The token endpoint must answer within this (its own timeout, apart from the call's). */
export const TOKEN_TIMEOUT_MS = 10_000;
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const MAX_ANSWER_BYTES = 64 * 1024;

interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

/** A failure to get a token: a 502 that blames the gateway's credentials, with the cause for logs only. */
function failure(detail: string, cause?: unknown): GatewayError {
  return new GatewayError('upstream_error', 'The gateway could not obtain an access token for the upstream.', {
    status: 502,
    detail,
    ...(cause === undefined ? {} : { cause }),
  });
}

function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw failure('service account key: not JSON');
  }
  const k = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const clientEmail = k['client_email'];
  const privateKey = k['private_key'];
  const tokenUri = k['token_uri'] ?? 'https://oauth2.googleapis.com/token';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- names the key file's `type` as it came
  if (k['type'] !== undefined && k['type'] !== 'service_account') throw failure(`service account key: type is ${String(k['type'])}, not service_account`);
  if (typeof clientEmail !== 'string' || typeof privateKey !== 'string' || typeof tokenUri !== 'string') {
    throw failure('service account key: client_email, private_key and token_uri must be strings');
  }
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw failure('service account key: token_uri is not a URL');
  }
  // The grant travels in the clear over http: only to this machine.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url))) throw failure('service account key: token_uri must be https');
  return { clientEmail, privateKey, privateKeyId: typeof k['private_key_id'] === 'string' ? k['private_key_id'] : undefined, tokenUri: url.toString() };
}

async function readAnswer(body: Parameters<typeof eachChunk>[0] | null): Promise<string> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const whole = await eachChunk(body, (chunk) => {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) return false;
    chunks.push(chunk);
    return true;
  });
  if (!whole) throw failure('token endpoint: answer too large');
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Sign the grant and exchange it; every failure is a canonical error with no secret in it. */
export async function fetchServiceAccountToken(
  keyText: string,
  scopes: readonly string[],
  fetch: UpstreamFetch,
  now: number,
  timeoutMs: number = TOKEN_TIMEOUT_MS,
): Promise<AccessToken> {
  const key = parseServiceAccountKey(keyText);
  const { importPKCS8, SignJWT } = await loadJose();
  let assertion: string;
  try {
    const privateKey = await importPKCS8(key.privateKey, 'RS256');
    const iat = Math.floor(now / 1000);
    assertion = await new SignJWT({ scope: scopes.join(' ') })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(key.privateKeyId === undefined ? {} : { kid: key.privateKeyId }) })
      .setIssuer(key.clientEmail)
      .setAudience(key.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(privateKey);
  } catch (cause) {
    throw failure('service account key: the private key cannot sign (not an RSA PKCS#8 key)', cause);
  }
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await fetch(key.tokenUri, {
      method: 'POST',
      headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }),
      body: new URLSearchParams({ grant_type: GRANT_TYPE, assertion }).toString(),
      redirect: 'error',
      signal,
    });
    status = response.status;
    text = await readAnswer(response.body);
  } catch (cause) {
    if (GatewayError.isInstance(cause)) throw cause;
    throw failure(signal.aborted ? `token endpoint: no answer within ${timeoutMs} ms` : 'token endpoint: unreachable', cause);
  }
  let answer: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) answer = parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (status < 200 || status > 299) {
    // The OAuth error code only (invalid_grant for an expired or deleted key): its description may name the account.
    const code = typeof answer['error'] === 'string' && /^[a-z_]{1,64}$/.test(answer['error']) ? answer['error'] : 'unknown';
    throw failure(`token endpoint: ${status} ${code}`);
  }
  const accessToken = answer['access_token'];
  const expiresIn = answer['expires_in'];
  if (typeof accessToken !== 'string' || accessToken.length === 0) throw failure('token endpoint: no access_token in its answer');
  return { accessToken, expiresInS: typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600 };
}

export interface GoogleServiceAccountSignerOptions {
  /** How long the token endpoint may take to answer, in milliseconds. Default 10 s. */
  tokenTimeoutMs?: number;
}

/** A service account signer with its own options. */
export function createGoogleServiceAccountSigner(options: GoogleServiceAccountSignerOptions = {}): GoogleServiceAccountSigner {
  const timeout = options.tokenTimeoutMs ?? TOKEN_TIMEOUT_MS;
  return { kind: 'google_service_account', fetchToken: (key, scopes, fetch, now) => fetchServiceAccountToken(key, scopes, fetch, now, timeout) };
}

/** The service account signer (`options.signers`); `createGateway` of `@tollgate/core` includes it. */
export const googleServiceAccountSigner: GoogleServiceAccountSigner = createGoogleServiceAccountSigner();
