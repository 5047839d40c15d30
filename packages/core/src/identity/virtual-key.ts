/**
 * Virtual keys: `tg_` + URL-safe random characters, stored only as `sha256:<hex>`.
 * Plaintext keys are never logged, stored or put in errors.
 */

import { bytesToHex, sha256 } from '../util/sha256.js';

export const VIRTUAL_KEY_PREFIX = 'tg_';
const KEY_SHAPE = /^tg_[A-Za-z0-9_-]{32,256}$/;
const HASH_SHAPE = /^sha256:[0-9a-f]{64}$/;

/** True when `secret` has the shape of a tollgate key (`tg_` + ≥ 32 URL-safe characters). */
export function isVirtualKeyShape(secret: string): boolean {
  return KEY_SHAPE.test(secret);
}

/** True for a normalized stored hash: `sha256:` + 64 lowercase hex digits. */
export function isKeyHash(value: string): boolean {
  return HASH_SHAPE.test(value);
}

/** A new key (shown once to its owner) and the hash to put in config or a database. */
export async function createVirtualKey(): Promise<{ key: string; hash: string }> {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  const key = VIRTUAL_KEY_PREFIX + base64url(bytes);
  return { key, hash: await hashVirtualKey(key) };
}

/** `sha256:` + lowercase hex of SHA-256 over the key's UTF-8 bytes. */
export async function hashVirtualKey(key: string): Promise<string> {
  return 'sha256:' + toHex(await digest(key));
}

/**
 * SHA-256 of the key's UTF-8 bytes. Synchronous and pure (util/sha256): on the per-request
 * path it is several times cheaper than a Web Crypto round trip for a key this short.
 */
export async function digest(key: string): Promise<Uint8Array> {
  return sha256(key);
}

/** Compares two byte strings without short-circuiting on the first difference. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** Bytes of a normalized `sha256:<hex>` hash. */
export function hashBytes(hash: string): Uint8Array {
  const hex = hash.slice('sha256:'.length);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i] as number);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
