/**
 * Writes the JSON Schemas of the three file formats from their zod schemas:
 *
 *   packages/core/schema/registry.schema.json
 *   packages/policy/schema/policy.schema.json
 *   packages/adapters-node/schema/service-config.schema.json
 *
 * `npm run build` runs it (`npm run gen:schemas`). With `--check` it writes nothing and exits 1
 * naming every committed file that differs from what its zod schema generates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderRegistryJsonSchema } from '../packages/core/src/registry/json-schema.js';
import { renderPolicyJsonSchema } from '../packages/policy/src/json-schema.js';
import { renderServiceConfigJsonSchema } from '../packages/adapters-node/src/cli/json-schema.js';

const SCHEMAS: ReadonlyArray<{ file: string; render: () => string }> = [
  { file: 'packages/core/schema/registry.schema.json', render: renderRegistryJsonSchema },
  { file: 'packages/policy/schema/policy.schema.json', render: renderPolicyJsonSchema },
  { file: 'packages/adapters-node/schema/service-config.schema.json', render: renderServiceConfigJsonSchema },
];

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

const check = process.argv.includes('--check');
let stale = 0;
for (const { file, render } of SCHEMAS) {
  const path = root + file;
  const text = render();
  if (read(path) === text) continue;
  if (check) {
    stale++;
    console.error(`${file} differs from its zod schema: run \`npm run gen:schemas\` and commit it`);
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
if (stale > 0) process.exit(1);
