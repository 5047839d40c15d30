import type { Usage } from '../ir/usage.js';
import { isObject, tokenCount, wellFormedCounts } from '../shared/guards.js';
import type { WireUsage } from './schemas.js';

/**
 * OpenAI usage in canonical, non-overlapping kinds: `prompt_tokens` includes cached tokens (and
 * cache writes where a compatible server reports them), so they are subtracted from `input`.
 * `completion_tokens` already includes reasoning tokens.
 */
export function decodeUsage(value: unknown): Usage | null {
  if (!isObject(value)) return null;
  const prompt = tokenCount(value.prompt_tokens);
  const promptDetails = isObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const completionDetails = isObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const cacheRead = tokenCount(promptDetails.cached_tokens);
  const cacheWrite = tokenCount(promptDetails.cache_write_tokens);
  return {
    input: Math.max(0, prompt - cacheRead - cacheWrite),
    output: tokenCount(value.completion_tokens),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    reasoning: tokenCount(completionDetails.reasoning_tokens),
    measured:
      wellFormedCounts(value, ['prompt_tokens', 'completion_tokens'], ['total_tokens']) &&
      wellFormedCounts(promptDetails, [], ['cached_tokens', 'cache_write_tokens']) &&
      wellFormedCounts(completionDetails, [], ['reasoning_tokens']),
  };
}

/** Canonical usage as OpenAI reports it: prompt tokens include every cached kind. */
export function encodeUsage(usage: Usage): WireUsage {
  const writes = usage.cacheWrite + usage.cacheWrite1h;
  const prompt = usage.input + usage.cacheRead + writes;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    // `cache_write_tokens` is what OpenAI-compatible servers that report writes call them.
    prompt_tokens_details: writes > 0 ? { cached_tokens: usage.cacheRead, cache_write_tokens: writes } : { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}
