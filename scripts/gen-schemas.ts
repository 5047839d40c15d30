/**
 * Writes the JSON Schemas of the three file formats from their zod schemas:
 *
 *   packages/core/schema/registry.schema.json
 *   packages/policy/schema/policy.schema.json
 *   packages/adapters-node/schema/service-config.schema.json
 *
 * and the runtime copies of the documented zod schema modules (`runtime-schema.ts` beside
 * each `schema.ts`, without the descriptions: scripts/strip-descriptions.ts).
 *
 * `npm run build` runs it (`npm run gen:schemas`). With `--check` it writes nothing and exits 1
 * naming every committed file that differs from what its zod schema generates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RUNTIME_SCHEMAS, renderRuntimeSchema } from './runtime-schemas.js';

interface Generated {
  file: string;
  render: () => string;
}

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
function generate(files: readonly Generated[]): void {
  for (const { file, render } of files) {
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
}

// The runtime copies first: the JSON Schema generators below import code that validates with them.
generate(RUNTIME_SCHEMAS.map((s) => ({ file: s.runtime, render: () => renderRuntimeSchema(s) })));
const { renderRegistryJsonSchema } = await import('../packages/core/src/registry/json-schema.js');
const { renderPolicyJsonSchema } = await import('../packages/policy/src/json-schema.js');
const { renderServiceConfigJsonSchema } = await import('../packages/adapters-node/src/cli/json-schema.js');
generate([
  { file: 'packages/core/schema/registry.schema.json', render: renderRegistryJsonSchema },
  { file: 'packages/policy/schema/policy.schema.json', render: renderPolicyJsonSchema },
  { file: 'packages/adapters-node/schema/service-config.schema.json', render: renderServiceConfigJsonSchema },
]);
if (stale > 0) process.exit(1);
