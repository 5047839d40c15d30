/**
 * Key layout of the Redis store. Every key one script touches lives under one base,
 * `<prefix>{<tag>}:`, so in Redis Cluster the whole script runs in one slot:
 *
 *   r:<id>   hold record (hash: a = amount, e = expiry ms, k = JSON list of constraint keys)
 *   h:<key>  live holds on a constraint (zset: hold id → expiry ms, server clock)
 *   a:<key>  their amounts (hash: hold id → amount; field "" is the running sum)
 *   c:<key>  committed counter (string integer, INCRBY only)
 *   s:<id>   settled marker (repeat settles are no-ops while it lives)
 *   w:<key>  rate bucket (hash: s = window start, w = window ms, u = units used)
 *   m:<key>  one-shot marker
 *   i        index of constraint keys with holds (set), walked by sweep
 *
 * With a per-key tag function, two more keys exist outside any script: `<prefix>p:<id>`
 * (which tag holds reservation <id>) and `<prefix>tags` (the tags that have holds, for sweep).
 */

export type HashTagOption = string | ((key: string) => string);

/** Default tag: the whole store in one slot. */
export const DEFAULT_TAG = 'tg';

const checkTag = (tag: unknown, key: string): string => {
  if (typeof tag !== 'string' || tag.length === 0 || tag.includes('{') || tag.includes('}')) {
    throw new Error(`tollgate redis store: the hash tag of ${JSON.stringify(key)} must be a non-empty string without braces, got ${JSON.stringify(tag)}`);
  }
  return tag;
};

export class KeyLayout {
  /** True when every key shares one tag (no pointer or tag registry needed). */
  readonly fixed: boolean;
  private readonly tagFn: (key: string) => string;

  constructor(
    readonly prefix: string,
    hashTag: HashTagOption,
  ) {
    if (prefix.includes('{') || prefix.includes('}')) {
      throw new Error(`tollgate redis store: keyPrefix must not contain braces, got ${JSON.stringify(prefix)}`);
    }
    if (typeof hashTag === 'string') {
      const tag = checkTag(hashTag, '*');
      this.fixed = true;
      this.tagFn = () => tag;
    } else {
      this.fixed = false;
      this.tagFn = (key) => checkTag(hashTag(key), key);
    }
  }

  tagOf(key: string): string {
    return this.tagFn(key);
  }

  base(tag: string): string {
    return `${this.prefix}{${tag}}:`;
  }

  /**
   * The one tag shared by `keys` (what an atomic script needs); throws when they disagree.
   * Returns undefined for no keys.
   */
  commonTag(keys: Iterable<string>, what: string): string | undefined {
    let tag: string | undefined;
    let first = '';
    for (const key of keys) {
      const t = this.tagOf(key);
      if (tag === undefined) {
        tag = t;
        first = key;
      } else if (t !== tag) {
        throw new Error(
          `tollgate redis store: ${what} must be atomic, so its keys must share one hash tag; ` +
            `${JSON.stringify(first)} has {${tag}} but ${JSON.stringify(key)} has {${t}}`,
        );
      }
    }
    return tag;
  }

  /** Group keys by tag, keeping each key's position. */
  groupByTag(keys: readonly string[]): Map<string, number[]> {
    const groups = new Map<string, number[]>();
    keys.forEach((key, i) => {
      const tag = this.tagOf(key);
      const list = groups.get(tag);
      if (list === undefined) groups.set(tag, [i]);
      else list.push(i);
    });
    return groups;
  }

  /** Where a reservation's tag is remembered (per-key tags only). */
  pointer(id: string): string {
    return `${this.prefix}p:${id}`;
  }

  /** The set of tags that may hold reservations (per-key tags only). */
  tags(): string {
    return `${this.prefix}tags`;
  }
}

/**
 * A tag function that uses the `{...}` a logical key already carries (the Redis Cluster
 * convention) and `fallback` for keys without one. Give keys of one tenant the same `{tenant}`.
 */
export function hashTagFromKey(fallback: string = DEFAULT_TAG): (key: string) => string {
  return (key) => {
    const open = key.indexOf('{');
    if (open >= 0) {
      const close = key.indexOf('}', open + 1);
      if (close > open + 1) return key.slice(open + 1, close);
    }
    return fallback;
  };
}
