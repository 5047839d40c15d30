import { emptyUsage, promptTokens, type Usage } from '../ir/usage.js';
import { isObject, tokenCount, wellFormedCounts, type JsonObject } from '../shared/guards.js';

/** `usageMetadata` keys that decodeUsage reads; anything else (details, serviceTier, …) is vendor data. */
export const USAGE_KEYS = new Set([
  'promptTokenCount',
  'cachedContentTokenCount',
  'candidatesTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
  'totalTokenCount',
]);

const COUNT_KEYS = [...USAGE_KEYS].filter((k) => k !== 'totalTokenCount');

/**
 * Gemini `usageMetadata` → canonical usage (non-overlapping kinds). `promptTokenCount` includes
 * `cachedContentTokenCount`, so cached tokens are subtracted from input; tool-use prompt tokens are
 * input too. Thoughts are billed as output: output = candidates + thoughts, reasoning = thoughts.
 * Null when the metadata names no token count at all (a blocked prompt reports only its traffic type).
 */
export function decodeUsage(wire: unknown): Usage | null {
  if (!isObject(wire) || !COUNT_KEYS.some((k) => k in wire)) return null;
  const prompt = tokenCount(wire['promptTokenCount']);
  const cached = Math.min(tokenCount(wire['cachedContentTokenCount']), prompt);
  const thoughts = tokenCount(wire['thoughtsTokenCount']);
  return {
    ...emptyUsage(wellFormedCounts(wire, [], [...USAGE_KEYS])),
    input: prompt - cached + tokenCount(wire['toolUsePromptTokenCount']),
    cacheRead: cached,
    output: tokenCount(wire['candidatesTokenCount']) + thoughts,
    reasoning: thoughts,
  };
}

/** Canonical usage → Gemini `usageMetadata` (cache writes count as prompt tokens). */
export function encodeUsage(usage: Usage): JsonObject {
  const prompt = promptTokens(usage);
  const reasoning = Math.min(usage.reasoning, usage.output);
  // Like Google (proto3 JSON), zero counts other than the prompt's are left out.
  const out: JsonObject = { promptTokenCount: prompt };
  if (usage.output - reasoning > 0) out['candidatesTokenCount'] = usage.output - reasoning;
  if (usage.cacheRead > 0) out['cachedContentTokenCount'] = usage.cacheRead;
  if (reasoning > 0) out['thoughtsTokenCount'] = reasoning;
  out['totalTokenCount'] = prompt + usage.output;
  return out;
}
