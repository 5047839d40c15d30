import { describe, expect, it } from 'vitest';
import type { Candidate, ConversionPlan, Deployment } from './types.js';
import { pickWeighted } from './weighted.js';

function candidate(id: string, priority: number, weight: number, plan: ConversionPlan = 'identity'): Candidate {
  const deployment = { id, priority, weight } as Deployment;
  return { deployment, plan } as Candidate;
}

const ids = (list: readonly Candidate[]) => list.map((c) => c.deployment.id);

describe('pickWeighted', () => {
  const list = [candidate('a', 1, 100), candidate('b', 1, 300), candidate('c', 2, 1000)];

  it('is deterministic per sticky key', () => {
    for (let i = 0; i < 200; i++) {
      const key = `conversation-${i}`;
      expect(ids(pickWeighted(list, key))).toEqual(ids(pickWeighted(list, key)));
    }
  });

  it('takes the key as a function, made only when there is a choice, with the same result', () => {
    let made = 0;
    const make = (key: string) => () => (made++, key);
    for (let i = 0; i < 50; i++) expect(ids(pickWeighted(list, make(`k${i}`)))).toEqual(ids(pickWeighted(list, `k${i}`)));
    expect(made).toBe(50);
    const single = [candidate('only', 1, 100), candidate('later', 2, 100)];
    expect(ids(pickWeighted(single, make('unused')))).toEqual(['only', 'later']);
    expect(made).toBe(50);
  });

  it('returns a permutation: the choice first, the others in their order', () => {
    for (let i = 0; i < 50; i++) {
      const out = ids(pickWeighted(list, `k${i}`));
      expect([...out].sort()).toEqual(['a', 'b', 'c']);
      expect(out[2]).toBe('c');
    }
  });

  it('chooses roughly in proportion to weight within the head', () => {
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[pickWeighted(list, `user-${i}:session`)[0]!.deployment.id]!++;
    expect(counts.c).toBe(0); // priority 2 is not in the head
    expect(counts.a! / n).toBeGreaterThan(0.22);
    expect(counts.a! / n).toBeLessThan(0.28);
  });

  it('never reorders across conversion plans (identity stays ahead of translate)', () => {
    const mixed = [candidate('identity', 1, 1), candidate('translate', 1, 1000, 'translate')];
    for (let i = 0; i < 100; i++) expect(ids(pickWeighted(mixed, `k${i}`))[0]).toBe('identity');
  });

  it('skips weight 0 unless the whole head weighs 0', () => {
    const zero = [candidate('z', 1, 0), candidate('w', 1, 5)];
    for (let i = 0; i < 100; i++) expect(ids(pickWeighted(zero, `k${i}`))[0]).toBe('w');
    const allZero = [candidate('x', 1, 0), candidate('y', 1, 0)];
    expect(ids(pickWeighted(allZero, 'k'))).toEqual(['x', 'y']);
  });

  it('moves only the keys it must when a deployment joins', () => {
    const before = [candidate('a', 1, 1), candidate('b', 1, 1)];
    const after = [...before, candidate('c', 1, 1)];
    let moved = 0;
    const n = 5000;
    for (let i = 0; i < n; i++) {
      const x = pickWeighted(before, `k${i}`)[0]!.deployment.id;
      const y = pickWeighted(after, `k${i}`)[0]!.deployment.id;
      if (x !== y) {
        moved++;
        expect(y).toBe('c');
      }
    }
    expect(moved / n).toBeGreaterThan(0.28);
    expect(moved / n).toBeLessThan(0.39);
  });

  it('handles short lists and does not mutate its input', () => {
    expect(pickWeighted([], 'k')).toEqual([]);
    const one = [candidate('only', 1, 1)];
    expect(ids(pickWeighted(one, 'k'))).toEqual(['only']);
    const frozen = Object.freeze([...list]);
    pickWeighted(frozen, 'k');
    expect(ids(frozen)).toEqual(['a', 'b', 'c']);
  });
});
