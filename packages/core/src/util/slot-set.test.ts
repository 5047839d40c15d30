import { describe, expect, it } from 'vitest';
import { SlotSet } from './slot-set.js';

describe('SlotSet', () => {
  it('adds, deletes by slot and counts what is in it', () => {
    const set = new SlotSet<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    const sa = set.add(a);
    const sb = set.add(b);
    expect(set.size).toBe(2);
    expect(set.values()).toEqual([a, b]);
    expect(set.delete(sa, a)).toBe(true);
    expect(set.size).toBe(1);
    expect(set.values()).toEqual([b]);
    expect(sb).not.toBe(sa);
  });

  it('reuses freed slots, so the store does not grow past the most items held at once', () => {
    const set = new SlotSet<object>();
    const internal = set as unknown as { items: unknown[] };
    for (let round = 0; round < 1000; round++) {
      const held = Array.from({ length: 8 }, () => ({}));
      const slots = held.map((item) => set.add(item));
      held.forEach((item, i) => set.delete(slots[i]!, item));
    }
    expect(set.size).toBe(0);
    expect(internal.items.length).toBe(8);
    // A freed slot no longer points at what was in it.
    expect(internal.items.every((item) => item === undefined)).toBe(true);
  });

  it('leaves a slot alone when it is given back twice or now holds another item', () => {
    const set = new SlotSet<object>();
    const a = {};
    const slot = set.add(a);
    expect(set.delete(slot, a)).toBe(true);
    const b = {};
    expect(set.add(b)).toBe(slot);
    expect(set.delete(slot, a)).toBe(false);
    expect(set.values()).toEqual([b]);
    expect(set.size).toBe(1);
  });

  it('lets forEach delete the item it visits', () => {
    const set = new SlotSet<{ due: number; slot: number }>();
    const items = [1, 5, 2, 8].map((due) => ({ due, slot: -1 }));
    for (const item of items) item.slot = set.add(item);
    const expired: number[] = [];
    set.forEach((item) => {
      if (item.due <= 2) {
        expired.push(item.due);
        set.delete(item.slot, item);
      }
    });
    expect(expired.sort()).toEqual([1, 2]);
    expect(set.values().map((i) => i.due)).toEqual([5, 8]);
  });
});
