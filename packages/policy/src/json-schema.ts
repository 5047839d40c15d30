import { toJSONSchema } from 'zod/mini';
import { PolicySchema } from './schema.js';

export const POLICY_SCHEMA_ID = 'https://tollgate.dev/schema/policy.schema.json';

/**
 * The JSON Schema (draft 2020-12) of the policy file, generated from the zod schema, for
 * editors validating YAML. Cross-entry rules (duplicate ids, scopes known to the registry,
 * caps in order) are checked by `parsePolicy` only.
 */
export function policyJsonSchema(): Record<string, unknown> {
  const schema = toJSONSchema(PolicySchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: POLICY_SCHEMA_ID, title: 'tollgate policy', ...schema };
}

/** The text committed as `packages/policy/schema/policy.schema.json`. */
export function renderPolicyJsonSchema(): string {
  return `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;
}
