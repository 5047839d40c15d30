import type { Gateway } from '@tollgate/core';

/** The parsed policy, as the gateway holds it. */
type Policy = NonNullable<Gateway['policy']>;

/**
 * The ids of the spend rules that are hard caps: an enforced entry with a `block` action.
 * Rules in shadow (the whole policy, or the rule itself) never block, so they are not caps.
 */
export function hardCapRules(policy: Policy | null | undefined): string[] {
  if (policy === null || policy === undefined || policy.enforcement === 'shadow') return [];
  const ids: string[] = [];
  for (const rule of policy.spend?.rules ?? []) {
    if (rule.enforcement === 'shadow') continue;
    if (rule.matches.some((entry) => entry.actions.some((action) => action.type === 'block'))) ids.push(rule.id);
  }
  return ids;
}

/** Why a per-isolate store cannot hold the policy's caps, as a config issue message. */
export function perIsolateCapMessage(rules: readonly string[]): string {
  return (
    `the policy has hard spend caps (block rules: ${rules.join(', ')}) but no shared store: ` +
    'the default memory store lives in one isolate, and every isolate, region and cold start counts from zero, ' +
    'so a per-isolate cap is no cap. Pass `store` (a store shared by every isolate), ' +
    'or set `allowPerIsolateCaps: true` to accept caps that hold per isolate only.'
  );
}
