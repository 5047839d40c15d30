import { emptyUsage, type Usage } from '../ir/usage.js';
import { isObject, tokenCount, wellFormedCounts, type JsonObject } from '../shared/guards.js';
import type { WireUsage } from './schemas.js';

/**
 * Anthropic usage → canonical usage (non-overlapping kinds). `input_tokens` already excludes cache
 * reads and writes. Fields absent from `wire` keep their value from `previous`: stream
 * `message_delta` usage is cumulative but may name only `output_tokens`.
 */
export function decodeUsage(wire: unknown, previous?: Usage): Usage {
  const base = previous ?? emptyUsage();
  if (!isObject(wire)) return { ...base };
  // Trusted as measured when its counts are numbers (a stream's first report names input and
  // output, a later one at least output) and every report before it was.
  const measured =
    (previous?.measured ?? true) &&
    wellFormedCounts(wire, previous === undefined ? ['input_tokens', 'output_tokens'] : ['output_tokens'], [
      'input_tokens',
      'cache_read_input_tokens',
      'cache_creation_input_tokens',
    ]) &&
    (!isObject(wire['cache_creation']) || wellFormedCounts(wire['cache_creation'], [], ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens']));
  const usage: Usage = { ...base, measured };
  if ('input_tokens' in wire) usage.input = tokenCount(wire['input_tokens']);
  if ('cache_read_input_tokens' in wire) usage.cacheRead = tokenCount(wire['cache_read_input_tokens']);
  if ('output_tokens' in wire) usage.output = tokenCount(wire['output_tokens']);
  const breakdown = wire['cache_creation'];
  if (isObject(breakdown)) {
    usage.cacheWrite = tokenCount(breakdown['ephemeral_5m_input_tokens']);
    usage.cacheWrite1h = tokenCount(breakdown['ephemeral_1h_input_tokens']);
  } else if ('cache_creation_input_tokens' in wire) {
    // No TTL breakdown: keep the 1-hour share already known (if it still fits), the rest is 5-minute.
    const total = tokenCount(wire['cache_creation_input_tokens']);
    usage.cacheWrite1h = Math.min(base.cacheWrite1h, total);
    usage.cacheWrite = total - usage.cacheWrite1h;
  }
  // Anthropic does not split reasoning out of output, except in newer `output_tokens_details`.
  const details = wire['output_tokens_details'];
  if (isObject(details) && 'thinking_tokens' in details) usage.reasoning = tokenCount(details['thinking_tokens']);
  return usage;
}

/** Canonical usage → the Anthropic `usage` object of a message. */
export function encodeUsage(usage: Usage | null | undefined): WireUsage {
  const u = usage ?? emptyUsage();
  const wire: WireUsage = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: u.cacheWrite1h },
    output_tokens: u.output,
  };
  if (u.reasoning > 0) wire['output_tokens_details'] = { thinking_tokens: u.reasoning };
  return wire;
}

/** The cumulative usage of a stream `message_delta` (the fields the SDK copies). */
export function encodeDeltaUsage(u: Usage): JsonObject {
  const wire: JsonObject = {
    output_tokens: u.output,
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
  };
  // What decodeUsage reads back (the API reports it in newer versions): reasoning is not lost.
  if (u.reasoning > 0) wire['output_tokens_details'] = { thinking_tokens: u.reasoning };
  // A source that reports usage only at the end (Bedrock) says here, not in message_start, how the
  // cache writes split by TTL.
  if (u.cacheWrite1h > 0) wire['cache_creation'] = { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: u.cacheWrite1h };
  return wire;
}

/** Usage keys that decodeUsage reads; anything else in a response's usage is vendor data. */
export const USAGE_KEYS = new Set([
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'cache_creation',
  'output_tokens',
  'output_tokens_details',
]);
