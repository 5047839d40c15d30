/**
 * Readable zod messages for tollgate's file formats (policy, registry, service config): a
 * missing key says "missing", an unknown key or value says what was probably meant. Pass
 * `error` as the parse's `error` option, then word unknown keys with `unknownKey`.
 */
import type * as z from 'zod/mini';
import { didYouMean } from './suggest.js';

/** The keys an object schema accepts (zod keeps them on the schema instance). */
function shapeKeys(schema: unknown): string[] {
  const shape = (schema as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
  return shape === undefined ? [] : Object.keys(shape);
}

const hintKey = (path: readonly PropertyKey[], key: string): string => JSON.stringify([...path.map(String), key]);

export interface SchemaHints {
  /** Pass as the parse's `error` option. */
  error: z.core.$ZodErrorMap;
  /** `unknown key "x"`, with a hint when the object has a key close to it. */
  unknownKey: (path: readonly PropertyKey[], key: string) => string;
}

export function schemaHints(): SchemaHints {
  const hints = new Map<string, string>();
  const error: z.core.$ZodErrorMap = (issue) => {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) hints.set(hintKey(issue.path ?? [], key), didYouMean(key, shapeKeys(issue.inst)));
      return undefined;
    }
    if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
      const last = issue.path?.[issue.path.length - 1];
      return last === undefined ? 'missing' : `missing required key "${String(last)}"`;
    }
    if (issue.code === 'invalid_value' && typeof issue.input === 'string') {
      const values = issue.values.filter((v): v is string => typeof v === 'string');
      return `"${issue.input}" is not one of ${values.map((v) => `"${v}"`).join(', ')}${didYouMean(issue.input, values)}`;
    }
    return undefined;
  };
  return { error, unknownKey: (path, key) => `unknown key "${key}"${hints.get(hintKey(path, key)) ?? ''}` };
}
