/**
 * Gemini thought signatures folded into tool-call ids.
 *
 * Gemini attaches an opaque `thoughtSignature` to a `functionCall` part and requires it back on
 * that part in the next request. Clients of other formats (OpenAI Chat, Responses, Anthropic)
 * only echo the tool-call id. So, statelessly and reversibly, the signature travels inside the id
 * the client sees and is restored when the client sends that id back (in the assistant's tool
 * call and in the tool result):
 *
 *   <base>__ts_<signature as base64url, no padding>   the signature is canonical padded base64
 *   <base>__tx_<base64url of the signature's UTF-8>    any other signature text (exact round trip)
 *
 * Both forms use only `[A-Za-z0-9_-]`, so an id stays valid for Anthropic (`^[a-zA-Z0-9_-]+$`)
 * and OpenAI clients. The base is everything before the first marker; a base that already holds a
 * marker (never produced by a vendor) is left unfolded.
 */

const STANDARD = '__ts_';
const TEXT = '__tx_';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

/**
 * Ids the Gemini codec makes up for function calls that came without one (`gcall_…`, derived from
 * the position). The Gemini encoder leaves them out again, so Gemini matches calls by order.
 */
export const SYNTHETIC_CALL_PREFIX = 'gcall_';

export function isSyntheticCallId(id: string): boolean {
  return id.startsWith(SYNTHETIC_CALL_PREFIX);
}

/**
 * A made-up, deterministic call id: `gcall_<scope>_<index>`. The scope keeps only letters, digits
 * and `-` (so a made-up id never holds a fold marker).
 */
export function syntheticCallId(index: number, scope?: string): string {
  const clean = scope === undefined ? '' : scope.replace(/[^A-Za-z0-9-]/g, '-');
  return clean.length > 0 ? `${SYNTHETIC_CALL_PREFIX}${clean}_${index}` : `${SYNTHETIC_CALL_PREFIX}${index}`;
}

/** The id a client sees: the call id with the Gemini thought signature folded in (if any). */
export function foldSignature(id: string, signature: string | undefined): string {
  if (signature === undefined || signature.length === 0) return id;
  if (id.includes(STANDARD) || id.includes(TEXT)) return id;
  if (CANONICAL_BASE64.test(signature)) {
    return `${id}${STANDARD}${signature.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
  }
  return `${id}${TEXT}${toBase64Url(new TextEncoder().encode(signature))}`;
}

/** A client-echoed id split back into the call id and the Gemini thought signature (if folded). */
export function unfoldSignature(id: string): { id: string; thoughtSignature?: string } {
  const standard = id.indexOf(STANDARD);
  const text = id.indexOf(TEXT);
  const at = standard === -1 ? text : text === -1 ? standard : Math.min(standard, text);
  if (at <= 0) return { id };
  const payload = id.slice(at + STANDARD.length);
  if (payload.length === 0 || !URL_SAFE.test(payload)) return { id };
  const base = id.slice(0, at);
  if (at === standard) {
    const b64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    if (b64.length % 4 === 1) return { id };
    return { id: base, thoughtSignature: b64 + '='.repeat((4 - (b64.length % 4)) % 4) };
  }
  const bytes = fromBase64Url(payload);
  if (bytes === undefined) return { id };
  return { id: base, thoughtSignature: new TextDecoder().decode(bytes) };
}

/** The call id without any folded signature. */
export function baseCallId(id: string): string {
  return unfoldSignature(id).id;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | undefined {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  let binary: string;
  try {
    binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
