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

/** What settling saw that a gateway's operator should know of (`GatewayStats`). */
export interface SettleTally {
  /** Usage an upstream reported that could not be true (more than the request could use, or not numbers), settled as estimated. */
  usageDistrusted: number;
  /** Usage no exact price could be put on: the reservation was charged. */
  usageUnpriced: number;
}

/** A count no single request reaches: past it a report is held there (no price can overflow). */
const MAX_COUNT = 1_000_000_000;

/**
 * Usage held to what the request can have used: with admission's bounds in force (`costBounded`),
 * output to the output bound (the upstream was told it), and prompt kinds together (input first
 * given up, then cache writes, then cache reads) to the prompt bound where that bound is firm,
 * else to the model's context window. Firm: the prompt holds no media (an image or file counts at
 * an allowance a long video passes), and reached the upstream untranslated or without tools (a
 * translation may inline schema references). Every count to `MAX_COUNT` whatever the bounds. The
 * same object when nothing had to change; else a copy marked unmeasured.
 */
export function heldToBounds(ctx: RequestContext, usage: Usage): Usage {
  const firm = ctx.promptBoundFirm && (ctx.upstreamFormat === ctx.entryFormat || ctx.toolsDeclared.length === 0);
  const promptCeiling = firm ? ctx.promptBound : Math.max(ctx.promptBound, ctx.contextWindow ?? MAX_COUNT);
  const promptMax = ctx.costBounded ? Math.min(promptCeiling, MAX_COUNT) : MAX_COUNT;
  const outputMax = ctx.costBounded ? Math.min(ctx.outputBound, MAX_COUNT) : MAX_COUNT;
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite + usage.cacheWrite1h;
  if (prompt <= promptMax && usage.output <= outputMax && Math.max(usage.input, usage.cacheRead, usage.cacheWrite, usage.cacheWrite1h) <= MAX_COUNT)
    return usage;
  const held: Usage = { ...usage, measured: false };
  let left = promptMax;
  held.cacheRead = Math.min(usage.cacheRead, left);
  left -= held.cacheRead;
  held.cacheWrite1h = Math.min(usage.cacheWrite1h, left);
  left -= held.cacheWrite1h;
  held.cacheWrite = Math.min(usage.cacheWrite, left);
  left -= held.cacheWrite;
  held.input = Math.min(usage.input, left);
  held.output = Math.min(usage.output, outputMax);
  held.reasoning = Math.min(usage.reasoning, held.output);
  return held;
}

export interface SettleInput {
  ctx: RequestContext;
  /** Settles with retries, and keeps the hold renewed until one succeeds. */
  holds: HoldKeeper;
  pricing: Pricing | null;
  timezone: string;
  /** Measured usage is trusted only for a request that completed. */
  completed: boolean;
  tally: SettleTally;
}

/**
 * Price the usage (measured or estimated) and settle: the actual cost replaces the hold. A
 * settle the store fails is retried in the background (the hold stays renewed meanwhile);
 * this resolves after the first attempt. Never throws: a settle that cannot be made counts as
 * a failed one (`settleFailures`), its hold left to expire.
 */
export async function settleUsage(input: SettleInput): Promise<void> {
  try {
    await settle(input);
  } catch {
    input.holds.abandon(input.ctx.id);
  }
}

async function settle(input: SettleInput): Promise<void> {
  const { ctx } = input;
  const reported = ctx.usage;
  // A report whose counts are not numbers (the codecs mark it unmeasured) is the upstream's error:
  // the request is charged the estimate, as if nothing had been reported.
  const malformed = reported !== null && !reported.measured;
  if (malformed) ctx.usage = null;
  const usage = input.completed && reported !== null && !malformed ? reported : estimateUsage(ctx);
  // Never more than admission priced (recorded spend stays within every hard cap), whatever the upstream says.
  ctx.usage = heldToBounds(ctx, usage);
  if (malformed || ctx.usage !== usage) input.tally.usageDistrusted++;
  let total = 0;
  if (input.pricing !== null) {
    try {
      ctx.cost = priceUsage(input.pricing, ctx.usage);
      total = ctx.cost.total;
    } catch {
      // Beyond exact arithmetic (prices too large for the counts): the worst case admission sized
      // (what any cap reserved) is what is charged.
      ctx.cost = null;
      total = Math.max(ctx.reservedMicros, ctx.admittedWorstCase);
      input.tally.usageUnpriced++;
    }
  }
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
