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
  const out = { text: '' };
  write(value, out, new Set());
  return out.text;
}

/** Appending to one string is cheaper than joining many pieces (V8 builds a rope). */
interface Sink {
  text: string;
}

function write(value: unknown, out: Sink, seen: Set<object>): void {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      out.text += quote(value);
      return;
    case 'boolean':
      out.text += value ? 'true' : 'false';
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      out.text += String(value); // the same text as JSON.stringify for finite numbers
      return;
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not JSON');
    case 'object':
      break;
    default:
      out.text += 'null';
      return;
  }
  if (value === null) {
    out.text += 'null';
    return;
  }
  if (seen.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(value);
  if (Array.isArray(value)) {
    out.text += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.text += ',';
      const item: unknown = value[i];
      if (isOmitted(item)) out.text += 'null';
      else write(item, out, seen);
    }
    out.text += ']';
  } else {
    const record = value as Record<string, unknown>;
    // The default sort compares UTF-16 code units, as RFC 8785 requires.
    const keys = Object.keys(record).sort();
    out.text += '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (isOmitted(item)) continue;
      if (!first) out.text += ',';
      first = false;
      out.text += quote(key) + ':';
      write(item, out, seen);
    }
    out.text += '}';
  }
  seen.delete(value);
}

/** Strings that need no escaping are the common case; JSON.stringify handles the rest. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON must escape
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function quote(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
