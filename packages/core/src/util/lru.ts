/**
 * A bounded least-recently-used map: a `Map` keeps insertion order, so reading an entry moves
 * it to the end and the first key is the eviction candidate. Enough for small caches (the JWKS
 * key sets per URL) without a dependency.
 */
export class Lru<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`Lru: max must be a positive integer, got ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The value for `key`, marked most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key) as V;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Stores `value` as the most recently used entry, evicting the least recently used beyond `max`. */
  set(key: K, value: V): this {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }
}
