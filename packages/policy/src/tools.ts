/**
 * Tool allow-lists: every matching list (population and optional scope) must allow a tool —
 * lists only narrow. With no matching list, every tool is allowed. Used on the tools a
 * request declares and on the tool calls a response makes.
 */
import { compiled, type CompiledToolList } from './compile.js';
import type { Enforcement, Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';

export interface ToolsInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  model: string;
  /** Tool names declared or invoked. */
  tools: readonly string[];
  enforcement?: Enforcement;
}

export interface ToolVerdict {
  name: string;
  allowed: boolean;
  /** Ids of the lists that do not allow the tool. */
  deniedBy: string[];
}

export interface ToolsDecision {
  /** Every tool allowed (always true in shadow mode). */
  allowed: boolean;
  enforced: boolean;
  tools: ToolVerdict[];
  /** Names refused (enforced). */
  denied: string[];
  /** Names that would be refused had the policy been enforced. */
  wouldDeny: string[];
  /** `tool_not_allowed:<list id>` per refusing list. */
  reasons: string[];
  /** Ids of the lists that apply to this caller and model (none: every tool is allowed). */
  lists: string[];
}

function allows(list: CompiledToolList, name: string): boolean {
  if (list.any || list.exact.has(name)) return true;
  for (const p of list.prefixes) if (name.startsWith(p)) return true;
  return false;
}

/** Decide which tools the caller may declare or invoke with this model. */
export function decideTools(input: ToolsInput): ToolsDecision {
  const c = compiled(input.policy, input.registry);
  const enforced = (input.enforcement ?? c.enforcement) !== 'shadow';
  const mi = c.modelIndex.get(input.model);
  const lists = c.tools.filter((l) => l.pop.matches(input.principal) && (l.models === null || (mi !== undefined && l.models.has(mi))));
  const d: ToolsDecision = { allowed: true, enforced, tools: [], denied: [], wouldDeny: [], reasons: [], lists: lists.map((l) => l.id) };
  for (const name of input.tools) {
    const deniedBy = lists.filter((l) => !allows(l, name)).map((l) => l.id);
    const ok = deniedBy.length === 0;
    d.tools.push({ name, allowed: ok || !enforced, deniedBy });
    if (ok) continue;
    if (!enforced) {
      d.wouldDeny.push(name);
      continue;
    }
    d.allowed = false;
    d.denied.push(name);
    for (const id of deniedBy) if (!d.reasons.includes(`tool_not_allowed:${id}`)) d.reasons.push(`tool_not_allowed:${id}`);
  }
  return d;
}
