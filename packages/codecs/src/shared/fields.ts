/**
 * Top-level fields of an OpenAI-family request body (Chat Completions, Responses). The readers:
 * absent and `null` both read as undefined; a present value of the wrong type is a 400.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { Request } from '../ir/request.js';
import type { ConversionWarning } from '../ir/warning.js';
import type { WireFormat } from '../ir/wire-format.js';
import { asString, isObject, type JsonObject } from './guards.js';
import { dropped } from './warnings.js';

/** A 400 `invalid_request` naming the offending parameter. */
export function invalid(message: string, param: string): never {
  throw new GatewayError('invalid_request', message, { param });
}

export function present(body: JsonObject, key: string): boolean {
  return body[key] !== undefined && body[key] !== null;
}

export function num(body: JsonObject, key: string): number | undefined {
  if (!present(body, key)) return undefined;
  const value = body[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`${key} must be a number.`, key);
  return value;
}

export function int(body: JsonObject, key: string): number | undefined {
  const value = num(body, key);
  if (value !== undefined && !Number.isInteger(value)) invalid(`${key} must be an integer.`, key);
  return value;
}

export function bool(body: JsonObject, key: string): boolean | undefined {
  if (!present(body, key)) return undefined;
  if (typeof body[key] !== 'boolean') invalid(`${key} must be a boolean.`, key);
  return body[key];
}

export function str(body: JsonObject, key: string): string | undefined {
  if (!present(body, key)) return undefined;
  const value = asString(body[key]);
  if (value === undefined) invalid(`${key} must be a string.`, key);
  return value;
}

/** OpenAI `metadata`: an object of string values. */
export function decodeMetadata(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) invalid('metadata must be an object of strings.', 'metadata');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') invalid(`metadata.${key} must be a string.`, `metadata.${key}`);
    out[key] = v;
  }
  return out;
}

/**
 * Each top-level field not in `known` is unclassified (named in the result, with a warning);
 * each non-null one in `vendorFields` is kept verbatim in `vendor`.
 */
export function classifyFields(
  body: JsonObject,
  fields: { known: ReadonlySet<string>; vendor: ReadonlySet<string>; formatName: string },
  vendor: JsonObject,
  warnings: ConversionWarning[],
): string[] {
  const unclassified: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!fields.known.has(key)) {
      unclassified.push(key);
      warnings.push({ code: 'unclassified_field', path: key, message: `${key} is not a known ${fields.formatName} request field.` });
    } else if (fields.vendor.has(key) && value !== null && value !== undefined) {
      vendor[key] = value;
    }
  }
  return unclassified;
}

/** Fields only this format knows come back (a copy); another format's vendor fields are dropped with a warning. */
export function ownVendorFields(request: Request, format: WireFormat, formatName: string, warnings: ConversionWarning[]): JsonObject {
  const vendor = request.vendor;
  if (vendor === undefined) return {};
  if (vendor.format === format) return { ...vendor.fields };
  for (const key of Object.keys(vendor.fields)) {
    warnings.push(dropped(key, `it is a ${vendor.format} field with no ${formatName} equivalent`));
  }
  return {};
}

/** The OpenAI effort level nearest a thinking budget in tokens. */
export function effortForBudget(budget: number): 'low' | 'medium' | 'high' {
  return budget <= 2048 ? 'low' : budget <= 16384 ? 'medium' : 'high';
}
