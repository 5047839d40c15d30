import type { Usage } from '@tollgate/codecs/base';
import type { RateAdjustment } from '../store/types.js';
import { priceUsage, type Pricing } from '../pricing/index.js';
import type { HoldKeeper } from './holds.js';
import { COUNTER_TTL_MS, chargeKeyList } from './keys.js';
import type { RequestContext } from './context.js';
import type { UsageSink } from './usage-record.js';

/**
 * The local estimate when the upstream never reported usage: the prompt bound plus the
 * output actually relayed (one token per delta at least, or a quarter of its bytes), never
 * more than the output bound the request was admitted with (the upstream bills no more than
 * that; long tokens such as runs of spaces are many bytes each, and the estimate must not pass
 * the reservation). Input figures the upstream did report (Anthropic reports them at the
 * start) are kept.
 */
export function estimateUsage(ctx: RequestContext): Usage {
  const reported = ctx.usage;
  const relayed = Math.min(Math.max(ctx.outputDeltas, Math.ceil(ctx.outputBytes / 4)), ctx.outputBound);
  const reportedPrompt = reported === null ? 0 : reported.input + reported.cacheRead + reported.cacheWrite + reported.cacheWrite1h;
  return {
    input: reportedPrompt > 0 ? reported!.input : ctx.promptBound,
    cacheRead: reported?.cacheRead ?? 0,
    cacheWrite: reported?.cacheWrite ?? 0,
    cacheWrite1h: reported?.cacheWrite1h ?? 0,
    output: Math.max(reported?.output ?? 0, relayed),
    reasoning: reported?.reasoning ?? 0,
    measured: false,
  };
}

export interface SettleInput {
  ctx: RequestContext;
  /** Settles with retries, and keeps the hold renewed until one succeeds. */
  holds: HoldKeeper;
  pricing: Pricing | null;
  timezone: string;
  /** Measured usage is trusted only for a request that completed. */
  completed: boolean;
}

/**
 * Price the usage (measured or estimated) and settle: the actual cost replaces the hold. A
 * settle the store fails is retried in the background (the hold stays renewed meanwhile);
 * this resolves after the first attempt.
 */
export async function settleUsage(input: SettleInput): Promise<void> {
  const { ctx } = input;
  if (!input.completed || ctx.usage === null) ctx.usage = estimateUsage(ctx);
  if (input.pricing !== null) ctx.cost = priceUsage(input.pricing, ctx.usage);
  const total = ctx.cost?.total ?? 0;
  if (ctx.principal === null || ctx.model === null) return;
  const u = ctx.usage;
  const used = u.input + u.cacheRead + u.cacheWrite + u.cacheWrite1h + u.output;
  const rate = tokenAdjustments(ctx, used);
  await input.holds.settle({
    id: ctx.id,
    // The caller's counters and those of every pool it belongs to: settle touches every pool,
    // in the windows of the instant it was admitted at (those its caps reserved against).
    charges: chargeKeyList(ctx.keyTag, ctx.principal, ctx.model, ctx.chargedAt, input.timezone).map((c) => ({
      counter: c.counter,
      amount: total,
      ttlMs: c.ttlMs,
    })),
    counterTtlMs: COUNTER_TTL_MS,
    ...(rate.length === 0 ? {} : { rate }),
  });
}

/**
 * The token buckets admission took at the worst case, moved to `used` tokens (measured, or the
 * estimate): a token limit bites on what requests used, not on what they might have used.
 */
export function tokenAdjustments(ctx: RequestContext, used: number): RateAdjustment[] {
  const out: RateAdjustment[] = [];
  for (const b of ctx.tokenBuckets) {
    const delta = used - b.amount;
    if (delta !== 0) out.push({ key: b.key, windowMs: b.windowMs, start: b.start, delta });
  }
  return out;
}

/** Write the record once; never throws into the request path. */
export function writeRecord(ctx: RequestContext, sink: UsageSink): void {
  const record = ctx.takeRecord();
  if (record === null) return;
  sink.write(record);
  ctx.observer?.recorded(record);
}
