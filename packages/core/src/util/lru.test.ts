import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Lru } from './lru.js';

describe('Lru', () => {
  it('keeps at most max entries, evicting the least recently used', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1).set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3); // evicts b
    expect(lru.size).toBe(2);
    expect(lru.has('b')).toBe(false);
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });

  it('overwriting a key refreshes it without growing', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1).set('b', 2).set('a', 10).set('c', 3); // evicts b, not a
    expect(lru.get('a')).toBe(10);
    expect(lru.has('b')).toBe(false);
    expect(lru.size).toBe(2);
  });

  it('stores undefined and falsy values as present', () => {
    const lru = new Lru<string, unknown>(3);
    lru.set('u', undefined).set('z', 0);
    expect(lru.has('u')).toBe(true);
    expect(lru.get('z')).toBe(0);
  });

  it('delete and clear', () => {
    const lru = new Lru<string, number>(3);
    lru.set('a', 1).set('b', 2);
    expect(lru.delete('a')).toBe(true);
    expect(lru.delete('a')).toBe(false);
    lru.clear();
    expect(lru.size).toBe(0);
  });

  it('refuses a non-positive or fractional bound', () => {
    for (const max of [0, -1, 1.5, Number.NaN]) expect(() => new Lru(max)).toThrow(RangeError);
  });

  it('behaves like a reference model under random operations', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 7 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 7 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const lru = new Lru<number, number>(max);
        // Reference: an array of [key, value], least recently used first.
        let model: Array<[number, number]> = [];
        for (const o of ops) {
          if (o.kind === 'set') {
            model = model.filter(([k]) => k !== o.key);
            model.push([o.key, o.value]);
            if (model.length > max) model.shift();
            lru.set(o.key, o.value);
          } else if (o.kind === 'get') {
            const i = model.findIndex(([k]) => k === o.key);
            const expected = i === -1 ? undefined : model[i]![1];
            if (i !== -1) model.push(...model.splice(i, 1));
            expect(lru.get(o.key)).toBe(expected);
          } else {
            const had = model.some(([k]) => k === o.key);
            model = model.filter(([k]) => k !== o.key);
            expect(lru.delete(o.key)).toBe(had);
          }
          expect(lru.size).toBe(model.length);
          expect(lru.size).toBeLessThanOrEqual(max);
        }
        for (const [k, v] of model) expect(lru.get(k)).toBe(v);
      }),
    );
  });
});
