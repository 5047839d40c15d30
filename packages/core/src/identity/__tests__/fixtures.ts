import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export const ISSUER = 'https://idp.example.com';
export const AUDIENCE = 'tollgate';
export const JWKS_URL = 'https://idp.example.com/.well-known/jwks.json';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function makeKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, publicJwk };
}

export async function sign(key: SigningKey, claims: JWTPayload = {}, opts: { exp?: string | number; header?: Record<string, unknown> } = {}): Promise<string> {
  return new SignJWT({ sub: 'alice', ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...opts.header })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(key.privateKey);
}

/** A fake JWKS endpoint: serves `keys`, counts fetches, can be told to fail. */
export function fakeJwksServer(initial: JWK[]) {
  const state = { keys: initial, fetches: 0, status: 200, urls: [] as string[] };
  const fetch = async (url: string): Promise<Response> => {
    state.fetches++;
    state.urls.push(url);
    if (state.status !== 200) return new Response('nope', { status: state.status });
    return new Response(JSON.stringify({ keys: state.keys }), { headers: { 'content-type': 'application/json' } });
  };
  return { state, fetch };
}

export function bearer(token: string, extra: Record<string, string> = {}): Request {
  return new Request('https://gw.example.com/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...extra },
  });
}

export const b64url = (obj: unknown): string => btoa(JSON.stringify(obj)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
