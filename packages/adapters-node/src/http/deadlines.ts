/**
 * Time bounds of upstream calls: the error a call fails with when one runs out, and one timer
 * that checks the hard deadlines of every call under way.
 */
import { SlotSet } from '@tollgate/core';

/** Which bound ran out: opening a connection, the response head, silence in the body, or the whole call. */
export type TimeBound = 'connect' | 'headers' | 'body' | 'attempt';

/** A time bound that ran out. Named `TimeoutError`, as `AbortSignal.timeout`'s reason. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(
    readonly bound: TimeBound,
    readonly ms: number,
  ) {
    super(
      bound === 'headers'
        ? `the upstream sent no response head within ${ms} ms`
        : bound === 'attempt'
          ? `the upstream call took longer than ${ms} ms`
          : bound === 'body'
            ? `the upstream sent nothing for ${ms} ms`
            : `no connection to the upstream within ${ms} ms`,
    );
  }
}

/** A call with a hard deadline. */
export interface Expiring {
  /** When its current bound runs out (`performance.now()` ms). */
  readonly deadline: number;
  /** Its bound ran out. */
  expire(): void;
  /** Where `Deadlines` keeps it (set by `add`). */
  deadlineSlot: number;
}

/**
 * The hard deadlines of the calls under way, checked by one timer that ticks while there are
 * any (and stops one idle tick after), instead of a timer made and cleared per call: a deadline
 * fires at most one tick late.
 */
export class Deadlines {
  /** Not a `Set`: see `SlotSet` (a call per request, for as long as the client lives). */
  private readonly live = new SlotSet<Expiring>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private idleTicks = 0;

  constructor(readonly tickMs: number) {}

  /** A tick fine enough for `shortestMs`: a twentieth of it, from 10 ms to a second. */
  static tickFor(shortestMs: number): number {
    return Math.max(10, Math.min(1000, Math.floor(shortestMs / 20)));
  }

  add(call: Expiring): void {
    call.deadlineSlot = this.live.add(call);
    if (this.timer === null) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  delete(call: Expiring): void {
    this.live.delete(call.deadlineSlot, call);
  }

  private tick(): void {
    if (this.live.size === 0) {
      // Calls in sequence keep it running; a whole idle tick stops it.
      if (++this.idleTicks > 1 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
        this.idleTicks = 0;
      }
      return;
    }
    this.idleTicks = 0;
    const now = performance.now();
    this.live.forEach((call) => {
      if (now >= call.deadline) call.expire();
    });
  }
}
