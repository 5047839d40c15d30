/** Shared test data: a small registry view, principals, and a strict policy builder. */
import { parsePolicy, parseUsdMicros, type Policy, type Principal, type RegistryView } from '../index.js';

export const registry: RegistryView = {
  models: {
    'claude-opus': { tags: ['claude', 'opus', 'frontier'] },
    'claude-sonnet': { tags: ['claude', 'sonnet', 'frontier'] },
    'claude-haiku': { tags: ['claude', 'haiku'] },
    'gpt-5': { tags: ['openai', 'frontier'] },
    'gpt-5-mini': { tags: ['openai'] },
    'gemini-flash': { tags: ['google'] },
  },
};

/** Sunday 29 November 2026, 12:00 UTC. */
export const NOW = Date.UTC(2026, 10, 29, 12);

export function user(id: string, extra: Partial<Principal> = {}): Principal {
  return { kind: 'user', id, tier: 'normal', bu: 'payments', leaders: ['vp-eng', 'ceo'], ...extra };
}

export const alice = user('alice', { leaders: ['alice-mgr', 'carol', 'ceo'] });
export const bob = user('bob', { bu: 'research', leaders: ['bob-mgr', 'ceo'] });
export const dave = user('dave', { leaders: ['carol', 'ceo'] });

/** Parse a policy strictly (with the registry); throw with every violation otherwise. */
export function policy(raw: unknown): Policy {
  const r = parsePolicy(raw, { registry });
  if (!r.ok) throw new Error(`invalid test policy:\n${r.errors.map((e) => `${e.path}: ${e.message}`).join('\n')}`);
  return r.policy;
}

export function usd(amount: string): number {
  const m = parseUsdMicros(amount);
  if (m === undefined) throw new Error(`bad usd ${amount}`);
  return m;
}
