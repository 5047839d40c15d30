/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code units), no whitespace,
 * strings and numbers serialised as `JSON.stringify` does — the same text as RFC 8785 (JCS)
 * for JSON data. Equal data gives equal text, whatever the key order or source syntax
 * (YAML or JSON).
 *
 * Like `JSON.stringify`: `toJSON` is honoured, object members whose value is `undefined`, a
 * function or a symbol are omitted, and such array elements become `null`. Unlike it,
 * non-finite numbers, bigints and cycles throw a `TypeError` rather than being mangled.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not JSON');
    case 'object':
      break;
    default:
      return 'null';
  }
  if (value === null) return 'null';
  if (seen.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[' + value.map((item) => (isOmitted(item) ? 'null' : write(item, seen))).join(',') + ']';
  } else {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort(compareCodeUnits)) {
      const item = record[key];
      if (isOmitted(item)) continue;
      parts.push(JSON.stringify(key) + ':' + write(item, seen));
    }
    out = '{' + parts.join(',') + '}';
  }
  seen.delete(value);
  return out;
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
