import * as z from 'zod';
import { ServiceConfigSchema } from './config.js';

export const SERVICE_CONFIG_SCHEMA_ID = 'https://tollgate.dev/schema/service-config.schema.json';

/**
 * The JSON Schema (draft 2020-12) of the `tollgate serve` config file, generated from the zod
 * schema, for editors validating YAML. What spans keys (a duplicate key hash, exactly one of
 * `jwks_url` or `jwks`) is checked by `tollgate validate` only.
 */
export function serviceConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ServiceConfigSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: SERVICE_CONFIG_SCHEMA_ID, title: 'tollgate service config', ...schema };
}

/** The text committed as `packages/adapters-node/schema/service-config.schema.json`. */
export function renderServiceConfigJsonSchema(): string {
  return `${JSON.stringify(serviceConfigJsonSchema(), null, 2)}\n`;
}
