import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderServiceConfigJsonSchema, serviceConfigJsonSchema } from './json-schema.js';

const committed = fileURLToPath(new URL('../../schema/service-config.schema.json', import.meta.url));

describe('service config JSON Schema', () => {
  it('the committed file is what the generator writes (run: npm run gen:schemas)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(renderServiceConfigJsonSchema());
  });

  it('rejects unknown keys, requires the registry and describes every key for editors', () => {
    const schema = serviceConfigJsonSchema() as { additionalProperties: boolean; required: string[]; properties: Record<string, { description?: string }> };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['registry']);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'listen',
        'registry',
        'policy',
        'identity',
        'store',
        'usage',
        'secrets',
        'max_request_bytes',
        'drain_timeout_s',
        'telemetry',
        'log',
      ]),
    );
    for (const [key, value] of Object.entries(schema.properties)) {
      if (key !== 'listen') expect(value.description, key).toBeTruthy();
    }
  });
});
