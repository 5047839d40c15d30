/**
 * Budget-tier substitution: once an entry with a `substitute` action is crossed (and latched
 * until the window rolls over), requests for models in its scope are served by the first
 * listed model the caller may use (and, with `eligible`, that can serve the request). Narrow only: a substitute must pass `decideAccess` (it
 * never leaves the caller's allow-list) and, when counters are given, `decideSpend`.
 */
import { decideAccess } from './access.js';
import type { Instant } from './calendar.js';
import type { Enforcement, Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';
import { decideSpend } from './spend.js';
import type { CounterValues } from './counters.js';
import type { Markers, PoolCounters, SpendCounters, SpendDecision } from './spend-types.js';

export interface SubstitutionInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** The requested canonical model. */
  model: string;
  /** `decideSpend` for the requested model. */
  spend: SpendDecision;
  now: Instant;
  /** When given, a candidate must also pass `decideSpend`. */
  counters?: SpendCounters | CounterValues;
  /** With nested `counters`: the counters of the caller's pools. */
  pools?: PoolCounters;
  markers?: Markers;
  enforcement?: Enforcement;
  /** The caller's own test of a candidate (can it serve this request at all?): one that fails is skipped. */
  eligible?: (model: string) => boolean;
}

export type SubstitutionDecision =
  | { type: 'keep'; model: string }
  | { type: 'substitute'; from: string; to: string; ruleId: string; latchKey: string }
  /** The tier is active but no candidate is allowed: refuse with `reason`. */
  | { type: 'refuse'; from: string; ruleId: string; reason: string };

/** Decide whether (and to what) the requested model is substituted. */
export function decideSubstitution(input: SubstitutionInput): SubstitutionDecision {
  const sub = input.spend.substitute;
  if (sub === undefined) return { type: 'keep', model: input.model };
  for (const to of sub.to) {
    if (to === input.model || !Object.hasOwn(input.registry.models, to)) continue;
    const base = { policy: input.policy, registry: input.registry, principal: input.principal, model: to, now: input.now };
    const access = decideAccess(input.enforcement === undefined ? base : { ...base, enforcement: input.enforcement });
    if (!access.allowed) continue;
    if (input.eligible !== undefined && !input.eligible(to)) continue;
    if (input.counters !== undefined) {
      const spend = decideSpend({
        ...base,
        counters: input.counters,
        ...(input.pools === undefined ? {} : { pools: input.pools }),
        ...(input.markers === undefined ? {} : { markers: input.markers }),
        ...(input.enforcement === undefined ? {} : { enforcement: input.enforcement }),
      });
      if (!spend.allowed) continue;
    }
    return { type: 'substitute', from: input.model, to, ruleId: sub.ruleId, latchKey: sub.latchKey };
  }
  return { type: 'refuse', from: input.model, ruleId: sub.ruleId, reason: `spend_limit:${sub.ruleId}` };
}
