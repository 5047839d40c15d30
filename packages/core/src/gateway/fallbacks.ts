/**
 * Model access on Anthropic `fallbacks` (`[{ model }, …]`): each names another model that may
 * answer the request upstream. While the policy has access rules, every model it names must be
 * one the caller may use, or the request is refused as an access refusal is — the same 404 as
 * for an unknown model, so a refusal tells nothing of what exists.
 */
import type { Request as IRRequest } from '@tollgate/codecs/base';
import { decideAccess, type Policy, type Principal } from '@tollgate/policy';
import { resolveModel, type Model, type Registry } from '../registry/index.js';

/** Whether the policy restricts who may use some model (access rules, rosters, pilots, business-unit toggles). */
export function accessRulesApply(policy: Policy): boolean {
  const some = (o: object | undefined) => o !== undefined && Object.keys(o).length > 0;
  return (
    some(policy.access?.models) ||
    some(policy.limited_access) ||
    (policy.pilots ?? []).length > 0 ||
    Object.values(policy.business_units ?? {}).some((bu) => some(bu.models))
  );
}

/** The models `fallbacks` names, null for an entry that names none; [] when the request has no `fallbacks`. */
export function fallbackModels(ir: IRRequest): Array<string | null> {
  const value = ir.vendor?.fields['fallbacks'];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [null];
  return value.map((f) => {
    const model = typeof f === 'object' && f !== null ? (f as Record<string, unknown>)['model'] : undefined;
    return typeof model === 'string' && model !== '' ? model : null;
  });
}

/**
 * The registry models a fallback name may reach: the model it names (id or alias), else every
 * model with a deployment of that upstream model.
 */
function modelsNamed(registry: Registry, name: string): Model[] {
  const named = resolveModel(registry, name);
  if (named !== null) return [named];
  return Object.values(registry.models).filter((m) => m.deployments.some((d) => d.upstreamModel === name));
}

export interface FallbackAccessInput {
  policy: Policy;
  registry: Registry;
  principal: Principal;
  now: number;
  ir: IRRequest;
  /** Shadow reports go here. */
  wouldBlock: string[];
}

/**
 * The first model `fallbacks` names that the caller may not use — unknown, not a generation
 * model, refused by access rules, or no model at all — with the record's reason; null when each
 * is allowed (or the policy has no access rules). A name that is an upstream model is allowed
 * when some model serving it is.
 */
export function fallbackRefusal(input: FallbackAccessInput): { name: string; reason: string } | null {
  const names = fallbackModels(input.ir);
  if (names.length === 0 || !accessRulesApply(input.policy)) return null;
  for (const name of names) {
    if (name === null) return { name: '', reason: 'model_not_found' };
    const models = modelsNamed(input.registry, name).filter((m) => !m.staged && m.kind === 'generate');
    if (models.length === 0) return { name, reason: 'model_not_found' };
    let denied: string | null = null;
    let allowed = false;
    for (const m of models) {
      const access = decideAccess({ policy: input.policy, registry: input.registry, principal: input.principal, model: m.id, now: input.now });
      for (const d of access.wouldDeny) if (!input.wouldBlock.includes(d.detail)) input.wouldBlock.push(d.detail);
      if (access.allowed) allowed = true;
      else denied ??= access.reason ?? 'access_denied';
    }
    if (!allowed) return { name, reason: denied ?? 'access_denied' };
  }
  return null;
}
