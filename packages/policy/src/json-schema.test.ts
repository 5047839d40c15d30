import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { policyJsonSchema, renderPolicyJsonSchema } from './json-schema.js';

const committed = fileURLToPath(new URL('../schema/policy.schema.json', import.meta.url));

describe('policy JSON Schema', () => {
  it('the committed file is what the generator writes (run: npm run gen:schemas)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(renderPolicyJsonSchema());
  });

  it('rejects unknown keys, knows every section and describes them for editors', () => {
    const schema = policyJsonSchema() as { $schema: string; additionalProperties: boolean; properties: Record<string, { description?: string }> };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'enforcement',
        'timezone',
        'default_max_tokens',
        'access',
        'limited_access',
        'pilots',
        'business_units',
        'spend',
        'rate_limits',
        'tools',
        'dlp',
        'prompts',
      ]),
    );
    for (const [key, value] of Object.entries(schema.properties)) expect(value.description, key).toBeTruthy();
  });
});
