export interface BreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long an open breaker refuses before letting one probe through. Default 30 s. */
  cooldownMs?: number;
}

type State = { failures: number; openedAt: number | null; probing: boolean };

/**
 * One circuit breaker per deployment: consecutive failures open it for a cool-down; after
 * that one probe is let through; its success closes the breaker, its failure re-opens it.
 */
export class Breakers {
  private readonly states = new Map<string, State>();
  private readonly threshold: number;
  private readonly cooldownMs: number;

  constructor(
    options: BreakerOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.threshold = options.failureThreshold ?? 5;
    this.cooldownMs = options.cooldownMs ?? 30_000;
  }

  /** May a request go to this deployment now? Claims the probe slot when half-open. */
  allow(id: string): boolean {
    const s = this.states.get(id);
    if (s === undefined || s.openedAt === null) return true;
    if (this.now() - s.openedAt < this.cooldownMs) return false;
    if (s.probing) return false;
    s.probing = true;
    return true;
  }

  /** Without claiming anything: is the deployment currently refusing? */
  isOpen(id: string): boolean {
    const s = this.states.get(id);
    return s !== undefined && s.openedAt !== null && (this.now() - s.openedAt < this.cooldownMs || s.probing);
  }

  /** For telemetry, without claiming anything: 0 closed, 1 open (refusing), 2 half-open (a probe may go or is out). */
  state(id: string): 0 | 1 | 2 {
    const s = this.states.get(id);
    if (s === undefined || s.openedAt === null) return 0;
    return this.now() - s.openedAt < this.cooldownMs ? 1 : 2;
  }

  success(id: string): void {
    this.states.delete(id);
  }

  failure(id: string): void {
    const s = this.states.get(id) ?? { failures: 0, openedAt: null, probing: false };
    s.failures++;
    if (s.probing || s.failures >= this.threshold) {
      s.openedAt = this.now();
      s.probing = false;
    }
    this.states.set(id, s);
  }

  /** A probe that ended without a verdict (e.g. the client went away) frees the slot. */
  abandon(id: string): void {
    const s = this.states.get(id);
    if (s !== undefined) s.probing = false;
  }
}
