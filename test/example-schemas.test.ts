/**
 * Every example YAML file names its JSON Schema in its first line (`# yaml-language-server:
 * $schema=…`, which editors read) and validates against it; the schemas reject what the zod
 * schemas reject at the level of one file (unknown keys, wrong values).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SCHEMAS = {
  registry: join(REPO, 'packages/core/schema/registry.schema.json'),
  policy: join(REPO, 'packages/policy/schema/policy.schema.json'),
  service: join(REPO, 'packages/adapters-node/schema/service-config.schema.json'),
} as const;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validators = Object.fromEntries(
  Object.entries(SCHEMAS).map(([name, path]) => [name, ajv.compile(JSON.parse(readFileSync(path, 'utf8')) as object)]),
) as Record<keyof typeof SCHEMAS, ReturnType<typeof ajv.compile>>;

const examples = yamlFiles(join(REPO, 'examples')).sort();

describe('example files and their JSON Schemas', () => {
  it('finds the example files (registry, policy and service config)', () => {
    const names = examples.map((f) => relative(REPO, f));
    expect(names).toContain('examples/service/tollgate.yaml');
    expect(names).toContain('examples/service/policy.yaml');
    expect(names).toContain('examples/registry/anthropic.yaml');
  });

  it.each(examples.map((f) => [relative(REPO, f), f]))('%s names its schema and validates against it', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const header = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
    expect(header, 'first line: # yaml-language-server: $schema=<path>').not.toBeNull();
    const target = resolve(dirname(file), header![1]!);
    const kind = (Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]).find((k) => SCHEMAS[k] === target);
    expect(kind, `${header![1]} is one of the generated schemas`).toBeDefined();
    const validate = validators[kind!];
    const ok = validate(parse(text));
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schemas refuse unknown keys and wrong values', () => {
    const service = { registry: './registry.yaml' };
    expect(validators.service(service)).toBe(true);
    expect(validators.service({ ...service, store: 'memroy' })).toBe(false);
    expect(validators.service({ ...service, usage: 'kafka://x' })).toBe(false);
    expect(validators.service({ ...service, stroe: 'memory' })).toBe(false);
    expect(validators.service({ ...service, store: { url: 'redis://h:6379', ttl: 3 } })).toBe(false);
    expect(validators.service({ ...service, usage: 'postgres://u@h/db', store: { url: 'redis://h:6379', reservation_ttl_s: 60 } })).toBe(true);
    expect(validators.policy({ enforcement: 'enforce', spend: { rules: [] } })).toBe(true);
    expect(validators.policy({ enforcement: 'maybe' })).toBe(false);
    expect(validators.policy({ rate_limits: [{ id: 'r', rpm: 10, burst: 3 }] })).toBe(false);
    expect(validators.registry({ wire_formats: {}, entry_routes: [], providers: {}, operations: [], models: {}, extra: 1 })).toBe(false);
  });
});
