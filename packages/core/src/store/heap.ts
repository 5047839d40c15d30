/** A binary min-heap ordered by a numeric priority. Small and allocation-light. */
export class MinHeap<T> {
  private items: Array<{ at: number; value: T }> = [];

  get size(): number {
    return this.items.length;
  }

  push(at: number, value: T): void {
    const items = this.items;
    items.push({ at, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      const c = items[i]!;
      if (p.at <= c.at) break;
      items[parent] = c;
      items[i] = p;
      i = parent;
    }
  }

  /** The smallest entry, without removing it. */
  peek(): { at: number; value: T } | undefined {
    return this.items[0];
  }

  pop(): { at: number; value: T } | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && items[l]!.at < items[m]!.at) m = l;
      if (r < items.length && items[r]!.at < items[m]!.at) m = r;
      if (m === i) break;
      const tmp = items[i]!;
      items[i] = items[m]!;
      items[m] = tmp;
      i = m;
    }
    return top;
  }

  /** Keep only the entries `keep` accepts (used to drop stale entries in bulk). */
  retain(keep: (at: number, value: T) => boolean): void {
    const kept = this.items.filter((e) => keep(e.at, e.value));
    kept.sort((a, b) => a.at - b.at); // a sorted array is a valid heap
    this.items = kept;
  }
}
