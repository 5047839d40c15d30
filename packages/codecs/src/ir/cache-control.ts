/** A prompt-cache breakpoint (Anthropic `cache_control`). Carried through the IR, never dropped. */
export interface CacheControl {
  type: 'ephemeral';
  /** Time to live; absent means the vendor default (5 minutes). */
  ttl?: '5m' | '1h';
}
