import type { HeaderReader } from '../gateway/request.js';
/**
 * Where each vendor SDK sends its key. Only these places are read; any other header a caller
 * sets (`x-tollgate-user`, `x-user-id`, …) is never identity.
 */

export type CredentialSource = 'authorization' | 'x-api-key' | 'x-goog-api-key' | 'query';

/** Headers that may carry a caller's credential; never forward them upstream. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'x-api-key', 'x-goog-api-key'];

/** The query parameter Gemini REST clients use for their key. */
export const CREDENTIAL_QUERY_PARAM = 'key';

/** Longest secret accepted (a JWT with a few claims fits easily). */
export const MAX_CREDENTIAL_LENGTH = 8192;

export type CredentialResult =
  | { ok: true; secret: string; source: CredentialSource }
  /**
   * `missing`: no credential anywhere; `malformed`: empty, oversized, not a Bearer token, or
   * sent twice with different values (never guess which one is the identity).
   */
  | { ok: false; reason: 'missing' | 'malformed' };

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

interface Found {
  secret: string;
  source: CredentialSource;
}

/** Reads the presented secret from a request, and where it came from. */
export function extractCredential(request: { headers: HeaderReader; url: string }): CredentialResult {
  const found: Found[] = [];
  let malformed = false;

  const auth = request.headers.get('authorization');
  if (auth !== null) {
    const m = BEARER.exec(auth.trim());
    if (m?.[1] !== undefined) found.push({ secret: m[1], source: 'authorization' });
    else malformed = true;
  }
  for (const name of ['x-api-key', 'x-goog-api-key'] as const) {
    const value = request.headers.get(name);
    if (value !== null) found.push({ secret: value.trim(), source: name });
  }
  const q = queryKeys(request.url);
  for (const value of q) found.push({ secret: value, source: 'query' });

  if (found.length === 0) return malformed ? { ok: false, reason: 'malformed' } : { ok: false, reason: 'missing' };
  const first = found[0] as Found;
  for (const f of found) {
    if (f.secret !== first.secret) malformed = true;
  }
  if (malformed || !wellFormed(first.secret)) return { ok: false, reason: 'malformed' };
  return { ok: true, secret: first.secret, source: first.source };
}

function wellFormed(secret: string): boolean {
  return secret.length > 0 && secret.length <= MAX_CREDENTIAL_LENGTH && TOKEN_CHARS.test(secret);
}

function queryKeys(url: string): string[] {
  // Cheap check first: most requests carry no query string.
  if (!url.includes('?')) return [];
  try {
    return new URL(url).searchParams.getAll(CREDENTIAL_QUERY_PARAM);
  } catch {
    return [];
  }
}
