/** What the token-counting codecs share: reading the one number of an answer, trimming a request. */
import type { EncodedRequest } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from './guards.js';
import { isObject, tokenCount } from './guards.js';

/** The count in `body[key]`, or an upstream error when the answer has none. */
export function countIn(body: unknown, key: string): number {
  if (isObject(body) && typeof body[key] === 'number' && Number.isFinite(body[key])) return tokenCount(body[key]);
  throw new GatewayError('upstream_error', `The upstream's token count answer has no ${key}.`);
}

/**
 * Keep only the fields a counting endpoint takes. A dropped field the counting endpoint has no use
 * for (output bounds, streaming, sampling) is not a loss; warnings about those are dropped too.
 */
export function onlyFields(encoded: EncodedRequest, keep: ReadonlySet<string>, irrelevant: ReadonlySet<string>): EncodedRequest {
  const body: JsonObject = {};
  for (const [key, value] of Object.entries(encoded.body)) if (keep.has(key)) body[key] = value;
  const warnings = encoded.warnings.filter((w) => w.path === undefined || !irrelevant.has(w.path.split(/[.[]/)[0]!));
  return { body, warnings };
}
