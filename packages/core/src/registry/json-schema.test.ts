import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registryJsonSchema, renderRegistryJsonSchema } from './json-schema.js';

const committed = fileURLToPath(new URL('../../schema/registry.schema.json', import.meta.url));

describe('registry JSON Schema', () => {
  it('the committed file is what the generator writes (run: npm run gen:schemas)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(renderRegistryJsonSchema());
  });

  it('rejects unknown keys and lists the required sections', () => {
    const schema = registryJsonSchema() as { additionalProperties: boolean; required: string[]; $schema: string };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['wire_formats', 'entry_routes', 'providers', 'operations', 'models']);
  });
});
