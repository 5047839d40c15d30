import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from './heap.js';

describe('MinHeap', () => {
  it('pops in priority order, also after retain', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 })), fc.integer({ min: 1, max: 4 }), (xs, m) => {
        const heap = new MinHeap<number>();
        for (const x of xs) heap.push(x, x);
        heap.retain((at) => Math.abs(at) % m !== 0);
        heap.push(0, 0);
        const out: number[] = [];
        for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.at);
        const want = [...xs.filter((x) => Math.abs(x) % m !== 0), 0].sort((a, b) => a - b);
        expect(out).toEqual(want);
        expect(heap.size).toBe(0);
      }),
    );
  });
});
