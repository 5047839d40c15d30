import { decideAccess, type Principal } from '@tollgate/policy';
import { listModels, type DiscoveryFormat, type Model } from '../registry/index.js';
import { RegionRouting } from './route-constraints.js';
import type { WalkDeps } from './walk-deps.js';

/**
 * GET /v1/models: rendered from the registry, listing only what the caller may use — access,
 * and some deployment in the regions the policy and the caller's `x-tollgate-region` allow.
 */
export function listModelsFor(deps: WalkDeps, principal: Principal, kind: DiscoveryFormat, requested: ReadonlySet<string> | null = null): unknown {
  const now = deps.now();
  const policy = deps.policy;
  const regions = new RegionRouting({ policy, registry: deps.registry, principal, requested, model: '', name: '', wouldBlock: [] });
  return listModels(deps.registry, kind, (modelId) => {
    if (policy !== null && !decideAccess({ policy, registry: deps.registry, principal, model: modelId, now }).allowed) return false;
    return regions.serves(deps.registry.models[modelId] as Model);
  });
}
