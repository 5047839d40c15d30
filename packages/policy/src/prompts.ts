/**
 * Policy prompts: which of `prompts` apply to a request — its caller (the population in
 * `match`), its model (`match.scope`) and the wire format the client speaks (`match.formats`)
 * — in file order, so the text put before the client's system prompt is a stable prefix.
 */
import type { Policy, PolicyPrompt } from './policy-types.js';
import { compilePopulation, type Population, type Principal } from './principal.js';
import { modelsInScope, type RegistryView } from './registry-view.js';

export interface PromptsInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  model: string;
  /** The entry wire format. */
  format: string;
}

const compiled = new WeakMap<PolicyPrompt, Population>();

export function decidePrompts(input: PromptsInput): PolicyPrompt[] {
  return (input.policy.prompts ?? []).filter((p) => {
    const m = p.match ?? {};
    if (m.formats !== undefined && !m.formats.includes(input.format)) return false;
    if (m.scope !== undefined && !modelsInScope(input.registry, m.scope).includes(input.model)) return false;
    let pop = compiled.get(p);
    if (pop === undefined) compiled.set(p, (pop = compilePopulation(m)));
    return pop.matches(input.principal);
  });
}
