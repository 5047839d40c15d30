/**
 * Access tokens minted for upstream credentials, cached per credential until a minute before they
 * expire. Many concurrent callers share one exchange: while it runs they all wait for it, and a
 * failed exchange is shared the same way (each later call tries once more, never in a loop).
 */
import type { AccessToken } from './signers.js';

/** A token is refreshed this long before it expires. */
export const REFRESH_MARGIN_MS = 60_000;

export interface AccessTokenStats {
  /** Calls answered from the cache or by joining an exchange under way. */
  hits: number;
  /** Exchanges started. */
  exchanges: number;
}

export class AccessTokens {
  private readonly cached = new Map<string, { token: string; refreshAt: number }>();
  private readonly pending = new Map<string, Promise<string>>();
  readonly stats: AccessTokenStats = { hits: 0, exchanges: 0 };

  constructor(private readonly now: () => number) {}

  /** The token for `key`, from the cache, from the exchange under way, or from a new one. */
  get(key: string, exchange: () => Promise<AccessToken>): Promise<string> {
    const entry = this.cached.get(key);
    if (entry !== undefined && this.now() < entry.refreshAt) {
      this.stats.hits++;
      return Promise.resolve(entry.token);
    }
    const running = this.pending.get(key);
    if (running !== undefined) {
      this.stats.hits++;
      return running;
    }
    this.stats.exchanges++;
    const started = this.now();
    const next = exchange()
      .then(({ accessToken, expiresInS }) => {
        // A token valid for less than the margin is used once and not kept.
        const refreshAt = started + expiresInS * 1000 - REFRESH_MARGIN_MS;
        if (refreshAt > started) this.cached.set(key, { token: accessToken, refreshAt });
        else this.cached.delete(key);
        return accessToken;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, next);
    return next;
  }

  /** Forget the tokens of keys starting with `prefix` (the upstream rejected one). */
  drop(prefix: string): void {
    for (const key of this.cached.keys()) if (key.startsWith(prefix)) this.cached.delete(key);
  }
}
