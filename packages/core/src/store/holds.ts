import { MinHeap } from './heap.js';

/** A reservation: `amounts[i]` counts against `keys[i]` until `expiresAt` (exclusive). */
export interface Hold {
  readonly id: string;
  readonly keys: readonly string[];
  readonly amounts: readonly number[];
  expiresAt: number;
  removed: boolean;
}

interface KeyIndex {
  /** Sum of the amounts of the holds on this key that are not removed. */
  sum: number;
  /** How many such holds. */
  live: number;
  /** Expiry of each hold on this key; entries go stale on renew or removal and are skipped. */
  expiries: MinHeap<Hold>;
}

const isCurrent = (at: number, hold: Hold): boolean => !hold.removed && hold.expiresAt === at;

/** Heaps are rebuilt when stale entries outnumber live ones by this much (amortised O(log n)). */
const slack = (live: number): number => 2 * live + 32;

/**
 * The holds of the memory store, indexed by id and by constraint key so every operation costs
 * O(keys touched · log holds on them), never O(all holds). Expiry is lazy: reading a key first
 * drops the holds on it that are due, so an expired hold stops counting at once.
 */
export class HoldBook {
  private readonly byId = new Map<string, Hold>();
  private readonly byKey = new Map<string, KeyIndex>();
  private readonly expiries = new MinHeap<Hold>();

  get size(): number {
    return this.byId.size;
  }

  /** The live hold with this id; an expired one is removed and reported as absent. */
  get(id: string, now: number): Hold | undefined {
    const hold = this.byId.get(id);
    if (hold === undefined) return undefined;
    if (hold.expiresAt <= now) {
      this.remove(hold);
      return undefined;
    }
    return hold;
  }

  /** The hold with this id, live or lapsed (not yet tidied). */
  find(id: string): Hold | undefined {
    return this.byId.get(id);
  }

  /** Sum of the live holds on `key` at `now`. */
  held(key: string, now: number): number {
    const index = this.byKey.get(key);
    if (index === undefined) return 0;
    for (let top = index.expiries.peek(); top !== undefined && top.at <= now; top = index.expiries.peek()) {
      index.expiries.pop();
      if (isCurrent(top.at, top.value)) this.remove(top.value);
    }
    return this.byKey.get(key)?.sum ?? 0;
  }

  /** Add a hold of `amounts[i]` on each of the distinct `keys`. The caller has checked that `id` is not live. */
  add(id: string, expiresAt: number, keys: readonly string[], amounts: readonly number[]): Hold {
    const stale = this.byId.get(id);
    if (stale !== undefined) this.remove(stale);
    const hold: Hold = { id, keys, amounts, expiresAt, removed: false };
    this.byId.set(id, hold);
    keys.forEach((key, i) => {
      let index = this.byKey.get(key);
      if (index === undefined) {
        index = { sum: 0, live: 0, expiries: new MinHeap<Hold>() };
        this.byKey.set(key, index);
      }
      index.sum += amounts[i] as number;
      index.live += 1;
    });
    this.schedule(hold);
    return hold;
  }

  /** Move a live hold's expiry. */
  renew(hold: Hold, expiresAt: number): void {
    hold.expiresAt = expiresAt;
    this.schedule(hold);
  }

  remove(hold: Hold): void {
    if (hold.removed) return;
    hold.removed = true;
    this.byId.delete(hold.id);
    hold.keys.forEach((key, i) => {
      const index = this.byKey.get(key);
      if (index === undefined) return;
      index.sum -= hold.amounts[i] as number;
      index.live -= 1;
      if (index.live <= 0) this.byKey.delete(key);
    });
  }

  /** Remove every hold due at `now`; returns how many were removed. */
  sweep(now: number): number {
    let removed = 0;
    for (let top = this.expiries.peek(); top !== undefined && top.at <= now; top = this.expiries.peek()) {
      this.expiries.pop();
      if (isCurrent(top.at, top.value)) {
        this.remove(top.value);
        removed += 1;
      }
    }
    return removed;
  }

  /** Heap entries held, stale ones included (for tests: stays O(live holds)). */
  get scheduled(): number {
    let n = this.expiries.size;
    for (const index of this.byKey.values()) n += index.expiries.size;
    return n;
  }

  clear(): void {
    for (const hold of this.byId.values()) hold.removed = true;
    this.byId.clear();
    this.byKey.clear();
    this.expiries.retain(() => false);
  }

  private schedule(hold: Hold): void {
    const at = hold.expiresAt;
    this.expiries.push(at, hold);
    if (this.expiries.size > slack(this.byId.size)) this.expiries.retain(isCurrent);
    for (const key of hold.keys) {
      const index = this.byKey.get(key);
      if (index === undefined) continue;
      index.expiries.push(at, hold);
      if (index.expiries.size > slack(index.live)) index.expiries.retain(isCurrent);
    }
  }
}
