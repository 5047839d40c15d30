import { describe, expect, it } from 'vitest';
import { stableHash53, stableUnitInterval } from './stable-hash.js';

describe('stableHash53', () => {
  it('is a fixed function of its input', () => {
    // Pinned: sticky routing across replicas and releases depends on these staying the same.
    expect(stableHash53('')).toBe(3338908027751811);
    expect(stableHash53('conversation-1')).toBe(stableHash53('conversation-1'));
    expect(stableHash53('a')).not.toBe(stableHash53('b'));
  });

  it('maps into (0, 1)', () => {
    for (let i = 0; i < 1000; i++) {
      const u = stableUnitInterval(`k${i}`);
      expect(u).toBeGreaterThan(0);
      expect(u).toBeLessThan(1);
    }
  });
});
