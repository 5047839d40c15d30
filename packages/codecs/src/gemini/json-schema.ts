/**
 * JSON Schema ⇄ the OpenAPI-style schema subset Gemini accepts in `parameters` and
 * `responseSchema`.
 *
 * Encoding keeps what the subset can say (type, format, title, description, nullable, enum,
 * items, properties, required, min/max bounds, pattern, anyOf, propertyOrdering), inlines local
 * `$ref`s, turns `type: [x, 'null']` into `nullable: true`, and drops everything else with one
 * `dropped_field` warning per dropped keyword path. Decoding turns Gemini's schema back into JSON
 * Schema (lower-case types, `nullable` as a `null` type) so other formats can use it.
 */
import type { ConversionWarning } from '../ir/warning.js';
import { isObject, type JsonObject } from '../shared/guards.js';
import { dropped, lossy } from '../shared/warnings.js';

const KEPT = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'propertyOrdering',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};
/** Inlining stops here: deeper (or recursive) references are dropped. */
const MAX_REF_DEPTH = 16;

interface State {
  defs: JsonObject;
  warnings: ConversionWarning[];
  refs: string[];
}

/** A JSON Schema in the subset Gemini accepts; what cannot be expressed is dropped with a warning. */
export function toGeminiSchema(schema: unknown, path: string, warnings: ConversionWarning[]): JsonObject {
  const root = isObject(schema) ? schema : {};
  const defs: JsonObject = { ...(isObject(root['definitions']) ? root['definitions'] : {}), ...(isObject(root['$defs']) ? root['$defs'] : {}) };
  return convert(schema, path, { defs, warnings, refs: [] });
}

/** True when the schema converts to the Gemini subset without losing anything. */
export function fitsGeminiSubset(schema: unknown): boolean {
  const warnings: ConversionWarning[] = [];
  toGeminiSchema(schema, '', warnings);
  return warnings.length === 0;
}

function resolveRef(ref: string, state: State): JsonObject | undefined {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const name = decodeURIComponent(match[1]!).replace(/~1/g, '/').replace(/~0/g, '~');
  const target = state.defs[name];
  return isObject(target) ? target : undefined;
}

function convert(node: unknown, path: string, state: State): JsonObject {
  if (!isObject(node)) {
    if (node !== true) state.warnings.push(lossy(path, `${path}: a boolean schema has no Gemini form; it was sent as an empty schema.`));
    return {};
  }
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const { $ref: _, ...siblings } = node;
    const target = resolveRef(ref, state);
    if (target !== undefined && !state.refs.includes(ref) && state.refs.length < MAX_REF_DEPTH) {
      return convert({ ...target, ...siblings }, path, { ...state, refs: [...state.refs, ref] });
    }
    state.warnings.push(dropped(`${path}.$ref`, target === undefined ? `the reference ${ref} cannot be inlined` : `the reference ${ref} is recursive`));
    return convert(siblings, path, state);
  }

  const out: JsonObject = {};
  let nullable = node['nullable'] === true;
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}.${key}`;
    switch (key) {
      case 'type':
        nullable = convertType(value, at, out, state) || nullable;
        break;
      case 'properties':
        if (isObject(value)) {
          const props: JsonObject = {};
          for (const [name, sub] of Object.entries(value)) props[name] = convert(sub, `${at}.${name}`, state);
          out['properties'] = props;
        } else state.warnings.push(dropped(at, 'properties must be an object'));
        break;
      case 'required':
        if (Array.isArray(value)) out['required'] = value.filter((v) => typeof v === 'string');
        break;
      case 'items':
        if (Array.isArray(value)) state.warnings.push(dropped(at, 'Gemini has no tuple schemas'));
        else out['items'] = convert(value, at, state);
        break;
      case 'anyOf':
      case 'oneOf': {
        if (!Array.isArray(value)) break;
        if (key === 'oneOf') state.warnings.push(lossy(at, `${at}: Gemini has no oneOf; it was sent as anyOf.`));
        const options = value.filter((v) => !(isObject(v) && v['type'] === 'null' && Object.keys(v).length === 1));
        if (options.length < value.length) nullable = true;
        const converted = options.map((v, i) => convert(v, `${at}[${i}]`, state));
        if (converted.length === 1) Object.assign(out, converted[0]);
        else if (converted.length > 1) out['anyOf'] = converted;
        break;
      }
      case 'allOf':
        mergeAllOf(value, at, out, state);
        break;
      case 'const':
        if (typeof value === 'string') {
          out['type'] ??= 'string';
          out['enum'] = [value];
        } else state.warnings.push(dropped(at, 'Gemini enums hold strings only'));
        break;
      case 'enum':
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out['enum'] = value;
        else if (Array.isArray(value) && value.every((v) => typeof v === 'string' || v === null) && value.includes(null)) {
          out['enum'] = value.filter((v) => v !== null);
          nullable = true;
        } else state.warnings.push(dropped(at, 'Gemini enums hold strings only'));
        break;
      case 'format':
        break; // checked once the type is known
      case '$defs':
      case 'definitions':
        break; // inlined where referenced
      case 'nullable':
        break;
      default:
        if (KEPT.has(key)) out[key] = value;
        else state.warnings.push(dropped(at, 'Gemini schemas do not support this keyword'));
    }
  }
  const format = node['format'];
  if (typeof format === 'string') {
    const allowed = typeof out['type'] === 'string' ? FORMATS[out['type']] : undefined;
    if (allowed !== undefined && allowed.has(format)) out['format'] = format;
    else state.warnings.push(dropped(`${path}.format`, `Gemini does not support the format ${format} here`));
  }
  if (nullable) out['nullable'] = true;
  return out;
}

/** Writes `type` (or an `anyOf` of types) into `out`; returns true when `null` was one of them. */
function convertType(value: unknown, path: string, out: JsonObject, state: State): boolean {
  const list = Array.isArray(value) ? value : [value];
  const types = list.filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase());
  const nullable = types.includes('null');
  const real = types.filter((t) => t !== 'null');
  const unknown = real.filter((t) => !TYPES.has(t));
  if (unknown.length > 0 || types.length !== list.length) state.warnings.push(dropped(path, `unknown type ${JSON.stringify(value)}`));
  const known = real.filter((t) => TYPES.has(t));
  if (known.length === 1) out['type'] = known[0];
  else if (known.length > 1) out['anyOf'] = known.map((t) => ({ type: t }));
  return nullable;
}

/** `allOf` of object schemas merges into one; anything else is dropped. */
function mergeAllOf(value: unknown, path: string, out: JsonObject, state: State): void {
  if (!Array.isArray(value)) return;
  const parts = value.map((v, i) => convert(v, `${path}[${i}]`, state));
  if (parts.length === 1) {
    Object.assign(out, parts[0]);
    return;
  }
  const objects = parts.every((p) => p['type'] === undefined || p['type'] === 'object');
  if (!objects) {
    state.warnings.push(dropped(path, 'Gemini has no allOf'));
    return;
  }
  const properties: JsonObject = { ...(isObject(out['properties']) ? out['properties'] : {}) };
  const required = new Set<string>(Array.isArray(out['required']) ? (out['required'] as string[]) : []);
  for (const p of parts) {
    if (isObject(p['properties'])) Object.assign(properties, p['properties']);
    if (Array.isArray(p['required'])) for (const r of p['required'] as string[]) required.add(r);
    if (typeof p['description'] === 'string' && out['description'] === undefined) out['description'] = p['description'];
  }
  out['type'] = 'object';
  out['properties'] = properties;
  if (required.size > 0) out['required'] = [...required];
  state.warnings.push(lossy(path, `${path}: allOf was merged into one object schema.`));
}

/** A Gemini (OpenAPI-style) schema as JSON Schema: lower-case types, `nullable` as a `null` type. */
export function fromGeminiSchema(schema: unknown): JsonObject {
  if (!isObject(schema)) return {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') out['type'] = value.toLowerCase();
    else if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = fromGeminiSchema(sub);
      out['properties'] = props;
    } else if (key === 'items') out['items'] = fromGeminiSchema(value);
    else if (key === 'anyOf' && Array.isArray(value)) out['anyOf'] = value.map(fromGeminiSchema);
    else if (key === 'format' && value === 'enum') continue;
    else out[key] = value;
  }
  if (schema['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (Array.isArray(out['anyOf'])) out['anyOf'] = [...(out['anyOf'] as unknown[]), { type: 'null' }];
    else out['nullable'] = true;
  }
  return out;
}
