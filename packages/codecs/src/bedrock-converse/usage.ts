import { emptyUsage, type Usage } from '../ir/usage.js';
import { asArray, isObject, tokenCount, wellFormedCounts, type JsonObject } from '../shared/guards.js';

/**
 * Converse `usage` → canonical usage. `inputTokens` already excludes cache reads and writes
 * (`totalTokens` is their sum with output); `cacheDetails` splits cache writes by TTL. Converse
 * does not report reasoning tokens separately: they stay inside `outputTokens`.
 */
export function decodeUsage(wire: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(wire)) return usage;
  usage.input = tokenCount(wire['inputTokens']);
  usage.output = tokenCount(wire['outputTokens']);
  usage.cacheRead = tokenCount(wire['cacheReadInputTokens']);
  const writes = tokenCount(wire['cacheWriteInputTokens']);
  let hour = 0;
  for (const detail of asArray(wire['cacheDetails']) ?? []) {
    if (isObject(detail) && detail['ttl'] === '1h') hour += tokenCount(detail['inputTokens']);
  }
  usage.cacheWrite1h = Math.min(hour, writes);
  usage.cacheWrite = writes - usage.cacheWrite1h;
  usage.measured = wellFormedCounts(wire, ['inputTokens', 'outputTokens'], ['cacheReadInputTokens', 'cacheWriteInputTokens', 'totalTokens']);
  return usage;
}

/** Canonical usage → a Converse `usage` object. */
export function encodeUsage(usage: Usage | null | undefined): JsonObject {
  const u = usage ?? emptyUsage();
  const writes = u.cacheWrite + u.cacheWrite1h;
  const wire: JsonObject = {
    inputTokens: u.input,
    outputTokens: u.output,
    totalTokens: u.input + u.output + u.cacheRead + writes,
  };
  if (u.cacheRead > 0 || writes > 0) {
    wire['cacheReadInputTokens'] = u.cacheRead;
    wire['cacheWriteInputTokens'] = writes;
  }
  if (u.cacheWrite1h > 0) {
    // Sorted by TTL, the hour first, as Bedrock sends them.
    const details: JsonObject[] = [{ ttl: '1h', inputTokens: u.cacheWrite1h }];
    if (u.cacheWrite > 0) details.push({ ttl: '5m', inputTokens: u.cacheWrite });
    wire['cacheDetails'] = details;
  }
  return wire;
}
