import type { Registry } from '../registry/index.js';
import { GatewayConfigError } from './config-error.js';

/** Refuse to start when the registry has count_tokens or embed routes and nothing serves them. */
export function assertKindsServed(registry: Registry, kinds: unknown): void {
  if (kinds !== null && (typeof kinds !== 'object' || typeof (kinds as { walk?: unknown }).walk !== 'function')) {
    throw new GatewayConfigError('options', [
      { path: 'kinds', message: "not what serves count_tokens and embed routes (import operationKinds from '@tollgate/core/kinds')" },
    ]);
  }
  if (kinds !== null) return;
  const routes = registry.entryRoutes.filter((r) => r.kind !== 'generate');
  if (routes.length === 0) return;
  throw new GatewayConfigError('options', [
    {
      path: 'kinds',
      message: `nothing serves the ${routes.map((r) => `${r.kind} route ${r.path}`).join(', ')}: add operationKinds from '@tollgate/core/kinds'`,
    },
  ]);
}
