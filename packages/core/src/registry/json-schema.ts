import { toJSONSchema } from 'zod/mini';
import { RegistrySchema } from './schema.js';

export const REGISTRY_SCHEMA_ID = 'https://tollgate.dev/schema/registry.schema.json';

/**
 * The JSON Schema (draft 2020-12) of the registry file, generated from the zod schema, for
 * editors validating YAML. Cross-entry rules (references, collisions, serviceability) are
 * checked by `loadRegistry` only.
 */
export function registryJsonSchema(): Record<string, unknown> {
  const schema = toJSONSchema(RegistrySchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: REGISTRY_SCHEMA_ID, title: 'tollgate registry', ...schema };
}

/** The text committed as `packages/core/schema/registry.schema.json`. */
export function renderRegistryJsonSchema(): string {
  return `${JSON.stringify(registryJsonSchema(), null, 2)}\n`;
}
