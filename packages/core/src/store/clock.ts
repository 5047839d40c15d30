/** A manual clock for tests: time moves only when told to. */
export interface FakeClock {
  /** Current time in ms; pass it as a store's or gateway's `now`. */
  readonly now: () => number;
  /** Move time forward by `ms` (non-negative) and return the new time. */
  advance(ms: number): number;
}

/** Starts at `start` (default 1 700 000 000 000, a fixed and realistic epoch ms). */
export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance(ms: number): number {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a fake clock only moves forward, got ${ms}`);
      t += ms;
      return t;
    },
  };
}
