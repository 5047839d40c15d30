/**
 * The documented zod schema modules and their runtime copies (scripts/strip-descriptions.ts):
 * `npm run gen:schemas` writes each copy, a test holds it to its source.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stripDescriptions } from './strip-descriptions.js';

export interface RuntimeSchema {
  /** The documented module, relative to the repository root. */
  source: string;
  /** Its copy without descriptions, beside it. */
  runtime: string;
}

export const RUNTIME_SCHEMAS: readonly RuntimeSchema[] = [
  { source: 'packages/policy/src/schema.ts', runtime: 'packages/policy/src/runtime-schema.ts' },
  { source: 'packages/core/src/registry/schema.ts', runtime: 'packages/core/src/registry/runtime-schema.ts' },
  { source: 'packages/core/src/identity/schema.ts', runtime: 'packages/core/src/identity/runtime-schema.ts' },
];

const root = fileURLToPath(new URL('..', import.meta.url));

/** The text `runtime` should have, from `source` as it is now. */
export function renderRuntimeSchema(s: RuntimeSchema): string {
  return stripDescriptions(readFileSync(root + s.source, 'utf8'), s.source, `./${s.source.split('/').pop()}`);
}
