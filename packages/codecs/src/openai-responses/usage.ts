import type { Usage } from '../ir/usage.js';
import { isObject, tokenCount, wellFormedCounts } from '../shared/guards.js';
import type { WireUsage } from './schemas.js';

/**
 * Responses usage in canonical, non-overlapping kinds: `input_tokens` includes cached tokens
 * (and cache writes where a compatible server reports them), so they are subtracted from
 * `input`; `output_tokens` already includes `reasoning_tokens`.
 */
export function decodeUsage(value: unknown): Usage | null {
  if (!isObject(value)) return null;
  const inputDetails = isObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const outputDetails = isObject(value.output_tokens_details) ? value.output_tokens_details : {};
  const cacheRead = tokenCount(inputDetails.cached_tokens);
  const cacheWrite = tokenCount(inputDetails.cache_write_tokens);
  return {
    input: Math.max(0, tokenCount(value.input_tokens) - cacheRead - cacheWrite),
    output: tokenCount(value.output_tokens),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    reasoning: tokenCount(outputDetails.reasoning_tokens),
    measured:
      wellFormedCounts(value, ['input_tokens', 'output_tokens'], ['total_tokens']) &&
      wellFormedCounts(inputDetails, [], ['cached_tokens', 'cache_write_tokens']) &&
      wellFormedCounts(outputDetails, [], ['reasoning_tokens']),
  };
}

/** Canonical usage as the Responses API reports it: input tokens include every cached kind. */
export function encodeUsage(usage: Usage): WireUsage {
  const writes = usage.cacheWrite + usage.cacheWrite1h;
  const input = usage.input + usage.cacheRead + writes;
  return {
    input_tokens: input,
    // `cache_write_tokens` is what OpenAI-compatible servers that report writes call them.
    input_tokens_details: writes > 0 ? { cached_tokens: usage.cacheRead, cache_write_tokens: writes } : { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + usage.output,
  };
}
