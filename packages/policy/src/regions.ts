/**
 * Region rules: where a population's requests may be served. Every matching rule (population
 * and optional scope) narrows routing to the deployments whose `region` is in its `allow` —
 * rules only narrow, so a request under several is served where all of them allow. A shadow
 * rule (or shadow mode) narrows nothing; the gateway reports it when enforcing it would have
 * left the request no deployment.
 */
import type { Enforcement, Policy, RegionRule } from './policy-types.js';
import { compilePopulation, type Population, type Principal } from './principal.js';
import { modelsInScope, type RegistryView } from './registry-view.js';

export interface RegionsInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** The canonical model id. */
  model: string;
  /** Overrides the policy's `enforcement`. */
  enforcement?: Enforcement;
}

export interface RegionLimit {
  ruleId: string;
  /** The regions the rule allows. */
  allow: readonly string[];
  /** False for a shadow rule or in shadow mode: report, do not narrow. */
  enforced: boolean;
  /** `region:<rule id>`. */
  reason: string;
}

export interface RegionsDecision {
  /** The rules that apply to this caller and model, in file order. */
  rules: RegionLimit[];
}

interface CompiledRegionRule {
  pop: Population;
  /** Model ids the scope covers; null: every model. */
  models: ReadonlySet<string> | null;
}

/** Per registry (a scope's models depend on it), per rule. */
const compiledRules = new WeakMap<RegistryView, WeakMap<RegionRule, CompiledRegionRule>>();

function compiledRule(rule: RegionRule, registry: RegistryView): CompiledRegionRule {
  let byRule = compiledRules.get(registry);
  if (byRule === undefined) compiledRules.set(registry, (byRule = new WeakMap()));
  let c = byRule.get(rule);
  if (c === undefined) {
    const scope = rule.match?.scope;
    c = { pop: compilePopulation(rule.match ?? {}), models: scope === undefined ? null : new Set(modelsInScope(registry, scope)) };
    byRule.set(rule, c);
  }
  return c;
}

/** The region rules that apply to `principal` calling `model`. */
export function decideRegions(input: RegionsInput): RegionsDecision {
  const rules = input.policy.regions ?? [];
  const out: RegionsDecision = { rules: [] };
  if (rules.length === 0) return out;
  const shadowAll = (input.enforcement ?? input.policy.enforcement ?? 'enforce') === 'shadow';
  for (const rule of rules) {
    const c = compiledRule(rule, input.registry);
    if (c.models !== null && !c.models.has(input.model)) continue;
    if (!c.pop.matches(input.principal)) continue;
    out.rules.push({ ruleId: rule.id, allow: rule.allow, enforced: !shadowAll && rule.enforcement !== 'shadow', reason: `region:${rule.id}` });
  }
  return out;
}
