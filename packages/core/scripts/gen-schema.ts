/**
 * Writes packages/core/schema/registry.schema.json from the zod schema.
 * Run: node --import tsx packages/core/scripts/gen-schema.ts   (a test fails when it is stale)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderRegistryJsonSchema } from '../src/registry/json-schema.js';

const target = fileURLToPath(new URL('../schema/registry.schema.json', import.meta.url));
writeFileSync(target, renderRegistryJsonSchema());
console.log(`wrote ${target}`);
