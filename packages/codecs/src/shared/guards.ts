/** Small hand-written type guards for the per-chunk path (a schema library costs more there). */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** A non-negative integer token count, or 0 when absent or malformed. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Whether a usage object's counts can be trusted as measured: each of `required` is there, and
 * every count of `required` and `optional` it holds (null counts as absent for the optional ones)
 * is a non-negative finite number. A count sent as a string, negative or not a number makes the
 * whole report an upstream's error, not a measurement (`tokenCount` reads it as 0).
 */
export function wellFormedCounts(wire: JsonObject, required: readonly string[], optional: readonly string[] = []): boolean {
  for (const key of required) if (!isCount(wire[key])) return false;
  for (const key of optional) {
    const value = wire[key];
    if (value !== undefined && value !== null && !isCount(value)) return false;
  }
  return true;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** Parse JSON without throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
