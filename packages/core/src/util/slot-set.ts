/**
 * The items under way of a long-lived owner (the calls a timer watches, the streams `close()`
 * waits for), one added and removed per request: a `Set` without what a `Set` costs there.
 *
 * A `Set` or `Map` that has lived long enough keeps its hash table in V8's old generation, and
 * every rehash of such a table allocates the next one there too. A table left behind by a
 * rehash still points at the items it held, and until a full collection those pointers count as
 * live for the young-generation collector: each item, and everything it reaches (a request's
 * whole graph), is promoted and waits for a full collection to be freed. Here an item lives in
 * an array slot that is cleared when it leaves, and the array only grows when more items are
 * under way at once than ever before.
 */
export class SlotSet<T extends object> {
  private readonly items: Array<T | undefined> = [];
  private readonly free: number[] = [];
  private count = 0;

  /** How many items are in the set. */
  get size(): number {
    return this.count;
  }

  /** Add an item; returns its slot, which `delete` takes (an item added twice takes two slots). */
  add(item: T): number {
    const slot = this.free.pop() ?? this.items.length;
    this.items[slot] = item;
    this.count++;
    return slot;
  }

  /** Remove the item in `slot` if it is `item` (a slot given back twice, or reused, is left alone). */
  delete(slot: number, item: T): boolean {
    if (this.items[slot] !== item) return false;
    this.items[slot] = undefined;
    this.free.push(slot);
    this.count--;
    return true;
  }

  /** The items now, in no particular order (a copy: the set may change while it is used). */
  values(): T[] {
    const out: T[] = [];
    for (const item of this.items) if (item !== undefined) out.push(item);
    return out;
  }

  /** Call `visit` on each item now in the set; items added meanwhile may or may not be visited. */
  forEach(visit: (item: T) => void): void {
    const items = this.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item !== undefined) visit(item);
    }
  }
}
