/**
 * The runtime copies of the documented zod schemas (`runtime-schema.ts` beside each
 * `schema.ts`, written by `npm run gen:schemas`): validation imports them so that no bundle
 * carries the descriptions only the JSON Schemas read. Each copy is what the generator writes
 * from its source now, and describes exactly the same files: its JSON Schema is the source's
 * with every description taken out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod/mini';
import * as documentedPolicy from '../packages/policy/src/schema.js';
import * as runtimePolicy from '../packages/policy/src/runtime-schema.js';
import * as documentedRegistry from '../packages/core/src/registry/schema.js';
import * as runtimeRegistry from '../packages/core/src/registry/runtime-schema.js';
import * as documentedIdentity from '../packages/core/src/identity/schema.js';
import * as runtimeIdentity from '../packages/core/src/identity/runtime-schema.js';
import { RUNTIME_SCHEMAS, renderRuntimeSchema } from '../scripts/runtime-schemas.js';
import { stripDescriptions } from '../scripts/strip-descriptions.js';
import { ROOT } from './support/edge/bundle.js';

/** A description annotation (a property *named* description has a schema, not a string, as its value). */
const isDescription = ([k, v]: [string, unknown]) => k === 'description' && typeof v === 'string';

/** A JSON Schema without its descriptions. */
function undescribed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(undescribed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter((e) => !isDescription(e))
      .map(([k, v]) => [k, undescribed(v)]),
  );
}

const descriptions = (value: unknown): number =>
  Array.isArray(value)
    ? value.reduce((n: number, v) => n + descriptions(v), 0)
    : typeof value === 'object' && value !== null
      ? Object.entries(value).reduce((n, e) => n + (isDescription(e) ? 1 : descriptions(e[1])), 0)
      : 0;

const PAIRS = [
  ['policy', documentedPolicy.PolicySchema, runtimePolicy.PolicySchema],
  ['registry', documentedRegistry.RegistrySchema, runtimeRegistry.RegistrySchema],
  ['identity', documentedIdentity.IdentityConfigSchema, runtimeIdentity.IdentityConfigSchema],
] as const;

describe('runtime copies of the documented schemas', () => {
  it.each(RUNTIME_SCHEMAS.map((s) => [s.runtime, s] as const))('%s is what npm run gen:schemas writes', (_name, s) => {
    expect(readFileSync(ROOT + s.runtime, 'utf8')).toBe(renderRuntimeSchema(s));
  });

  it.each(PAIRS)('the %s copy has the JSON Schema of its source, without any description', (_name, documented, runtime) => {
    const full = toJSONSchema(documented, { io: 'input', target: 'draft-2020-12' });
    const bare = toJSONSchema(runtime, { io: 'input', target: 'draft-2020-12' });
    expect(descriptions(full)).toBeGreaterThan(10);
    expect(descriptions(bare)).toBe(0);
    expect(bare).toEqual(undescribed(full));
  });

  it('validates as its source does, descriptions aside: same result on a valid and an invalid policy', () => {
    const valid = { rate_limits: [{ id: 'r', rpm: 10 }], tools: { allow_lists: [{ id: 't', allow: ['get_*'] }] } };
    const invalid = {
      rate_limits: [{ id: 'r', rpm: 10, unlimited: true }],
      prompts: [{ id: 'p', version: 1, text: '  ' }],
      spend: { rules: [{ id: 's', matches: [] }] },
    };
    for (const input of [valid, invalid]) {
      const a = documentedPolicy.PolicySchema.safeParse(input);
      const b = runtimePolicy.PolicySchema.safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.error?.issues).toEqual(a.error?.issues);
      expect(b.data).toEqual(a.data);
    }
  });
});

describe('stripDescriptions', () => {
  const strip = (source: string) => stripDescriptions(source, 'x.ts', './x.ts').split('\n').slice(2).join('\n');

  it('takes each description out of its .check(…), and a .check left empty with it', () => {
    const source = [
      "import * as z from 'zod/mini';",
      'const doc = (text: string) => z.describe(text);',
      "const A = z.string().check(doc('only'));",
      "const B = z.string().check(z.minLength(1), doc('last'));",
      "const C = z.string().check(doc(`first`), z.minLength(1)).check(z.describe('again'));",
      "const D = z.optional(z.strictObject({ k: z.number().check(doc('inner')) })).check(doc('outer'));",
      "const E = z.strictObject({ description: z.optional(z.string()) }).check(z.describe('kept key, gone text'));",
      '',
    ].join('\n');
    expect(strip(source)).toBe(
      [
        "import * as z from 'zod/mini';",
        'const A = z.string();',
        'const B = z.string().check(z.minLength(1));',
        'const C = z.string().check(z.minLength(1));',
        'const D = z.optional(z.strictObject({ k: z.number() }));',
        'const E = z.strictObject({ description: z.optional(z.string()) });',
        '',
      ].join('\n'),
    );
  });

  it('refuses a description it cannot take out cleanly', () => {
    expect(() => stripDescriptions("const x = [doc('loose')];", 'x.ts', './x.ts')).toThrow(/x\.ts:1: a description outside \.check/);
  });

  it('heads the copy with where it comes from', () => {
    expect(stripDescriptions('export {};\n', 'packages/p/src/schema.ts', './schema.ts')).toMatch(
      /^\/\/ Generated by `npm run gen:schemas` from \.\/schema\.ts/,
    );
  });
});
