import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys recursively and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('sorts by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalJson({ '\u20ac': 1, '\r': 2, '1': 3, a: 4, A: 5, '\ufb33': 7, '\ud83d\ude00': 6 })).toBe(
      '{"\\r":2,"1":3,"A":5,"a":4,"\u20ac":1,"\ud83d\ude00":6,"\ufb33":7}',
    );
  });

  it('serialises numbers and strings as JSON.stringify does', () => {
    expect(canonicalJson([0.1, 1e21, 1e-7, -0, 'a"\n\u2028'])).toBe(JSON.stringify([0.1, 1e21, 1e-7, 0, 'a"\n\u2028']));
  });

  it('escapes exactly as JSON.stringify does (quotes, controls, lone surrogates), in keys too', () => {
    const strings = ['\ud800', 'x\udfffy', '\u0007', '\u001f', 'a"b', '\\', '\u2028', 'é', '\ud83d\ude00'];
    expect(canonicalJson(strings)).toBe(JSON.stringify(strings));
    for (const key of strings) expect(canonicalJson({ [key]: 1 })).toBe(JSON.stringify({ [key]: 1 }));
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(canonicalJson(text)).toBe(JSON.stringify(text));
      }),
    );
  });

  it('omits undefined members, nulls undefined elements, honours toJSON', () => {
    expect(canonicalJson({ a: undefined, b: [undefined], c: { toJSON: () => 'x' } })).toBe('{"b":[null],"c":"x"}');
  });

  it('throws on non-JSON data', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });

  it('allows shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('is invariant under key order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(canonicalJson(shuffleKeys(value))).toBe(text);
      }),
    );
  });
});

function shuffleKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shuffleKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).reverse();
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v)]));
}
