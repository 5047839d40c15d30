import { resolveEntry, type Gateway } from '@tollgate/core';

/** Model discovery paths the gateway answers on GET (rendered from the registry). */
const DISCOVERY_PATHS = new Set(['/v1/models', '/v1beta/models', '/models']);

/** The caller's budget status (`GET`). */
const BUDGET_PATH = '/v1/tollgate/budget';

/** True when the gateway has a route for this method and path: an entry route, model discovery or the budget status. */
export function gatewayHandles(gateway: Pick<Gateway, 'registry'>, method: string, url: string): boolean {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (method === 'GET' && (DISCOVERY_PATHS.has(path) || path === BUDGET_PATH)) return true;
  return resolveEntry(gateway.registry, method, path) !== null;
}
