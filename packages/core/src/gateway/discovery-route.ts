import { decideAccess, type Principal } from '@tollgate/policy';
import { listModels, type DiscoveryFormat } from '../registry/index.js';
import type { WalkDeps } from './walk.js';

/** GET /v1/models: rendered from the registry, listing only what the caller may use. */
export function listModelsFor(deps: WalkDeps, principal: Principal, kind: DiscoveryFormat): unknown {
  const now = deps.now();
  const policy = deps.policy;
  return listModels(deps.registry, kind, (modelId) =>
    policy === null ? true : decideAccess({ policy, registry: deps.registry, principal, model: modelId, now }).allowed,
  );
}
