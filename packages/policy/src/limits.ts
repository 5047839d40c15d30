import type { Policy } from './policy-types.js';

/**
 * The output bound the gateway sets on the upstream request when the client sends no
 * `max_tokens`: the policy's `default_max_tokens`, else the model's `max_output_tokens`
 * (from the registry, passed by the caller), never above the model's maximum.
 */
export function defaultMaxTokens(policy: Policy, modelMaxOutputTokens?: number): number | undefined {
  const p = policy.default_max_tokens;
  if (p === undefined) return modelMaxOutputTokens;
  return modelMaxOutputTokens === undefined ? p : Math.min(p, modelMaxOutputTokens);
}
