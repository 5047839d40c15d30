/**
 * Calendar windows in one IANA time zone, correct across DST, computed with
 * `Intl.DateTimeFormat` (present on every edge runtime). Pure: `now` is always an argument.
 * Results are memoised per time zone (a deterministic cache, invisible to callers).
 */

/** Calendar windows, in the policy's time zone. Weeks are ISO weeks: they start on Monday. */
export type CalendarWindow = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'yearly';
/**
 * Rolling windows: the last 24 hours or 7 days, summed from UTC bucket counters (see
 * `rollingBounds`), so they never reset at midnight.
 */
export type RollingWindow = 'rolling_24h' | 'rolling_7d';
/** Budget windows. */
export type SpendWindow = CalendarWindow | RollingWindow;
export const CALENDAR_WINDOWS: readonly CalendarWindow[] = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'];
/** Every window; indices 0-4 are the calendar windows, 5 and 6 the rolling ones. */
export const SPEND_WINDOWS: readonly SpendWindow[] = [...CALENDAR_WINDOWS, 'rolling_24h', 'rolling_7d'];

export const isRollingWindow = (w: SpendWindow): w is RollingWindow => w === 'rolling_24h' || w === 'rolling_7d';

/** An instant: epoch milliseconds or a `Date`. */
export type Instant = number | Date;

/**
 * One window around an instant: `[start, end)` in epoch ms, the stable key holds and one-shot
 * markers use, and the counter keys whose sum is the window's spend.
 */
export interface WindowBounds {
  window: SpendWindow;
  /**
   * `2026-11-29` (daily), `2026-W48` (weekly), `2026-11` (monthly), `2026-Q4`, `2026`; for a
   * rolling window its name (`rolling_24h`, `rolling_7d`): its holds are not tied to a period.
   */
  key: string;
  /** Calendar: the window's first instant. Rolling: the start of its oldest bucket. */
  start: number;
  /** Calendar: when the window rolls over. Rolling: when its oldest bucket next drops out. */
  end: number;
  /** The window keys of the counters summed: `[key]` for a calendar window, the buckets for a rolling one. */
  counterKeys: readonly string[];
}

export function toEpochMs(now: Instant): number {
  return typeof now === 'number' ? now : now.getTime();
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True when `tz` is an IANA time zone this runtime knows. */
export function isValidTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

/** The local wall-clock time of instant `t` in `tz`. */
function wall(t: number, tz: string): Wall {
  const w: Wall = { y: 0, mo: 0, d: 0, h: 0, mi: 0, s: 0 };
  for (const part of formatter(tz).formatToParts(t)) {
    const v = Number(part.value);
    switch (part.type) {
      case 'year':
        w.y = v;
        break;
      case 'month':
        w.mo = v;
        break;
      case 'day':
        w.d = v;
        break;
      case 'hour':
        w.h = v === 24 ? 0 : v;
        break;
      case 'minute':
        w.mi = v;
        break;
      case 'second':
        w.s = v;
        break;
    }
  }
  return w;
}

/** Days since the epoch of a civil date (month 1-12; overflowing days roll over). */
const dayNumber = (y: number, mo: number, d: number): number => Date.UTC(y, mo - 1, d) / DAY_MS;
const localDay = (t: number, tz: string): number => {
  const w = wall(t, tz);
  return dayNumber(w.y, w.mo, w.d);
};

const dayStarts = new Map<string, number>();

/**
 * The first instant whose local date in `tz` is day number `day` (usually local midnight;
 * the end of the gap when a DST change skips midnight).
 */
export function startOfLocalDay(day: number, tz: string): number {
  const cacheKey = `${tz}|${day}`;
  const cached = dayStarts.get(cacheKey);
  if (cached !== undefined) return cached;
  const utc = day * DAY_MS;
  const offset = (t: number): number => {
    const w = wall(t, tz);
    return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - (t - (((t % 1000) + 1000) % 1000));
  };
  let t = utc - offset(utc);
  t = utc - offset(t);
  if (!(localDay(t, tz) === day && localDay(t - 1, tz) < day)) {
    // A DST gap or overlap at midnight: search for the first instant of the day (to the second).
    let lo = Math.floor((utc - 15 * 3_600_000) / 1000); // local date before `day` for any offset
    let hi = Math.floor((utc + 15 * 3_600_000) / 1000); // local date at or after `day`
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (localDay(mid * 1000, tz) >= day) hi = mid;
      else lo = mid;
    }
    t = hi * 1000;
  }
  if (dayStarts.size > 4096) dayStarts.clear();
  dayStarts.set(cacheKey, t);
  return t;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function civil(day: number): { y: number; mo: number; d: number; dow: number } {
  const dt = new Date(day * DAY_MS);
  return { y: dt.getUTCFullYear(), mo: dt.getUTCMonth() + 1, d: dt.getUTCDate(), dow: (dt.getUTCDay() + 6) % 7 };
}

/** Local calendar day number of `t` and the first/last day numbers of each window around it. */
function windowDays(window: CalendarWindow, day: number): { first: number; next: number; key: string } {
  const c = civil(day);
  switch (window) {
    case 'daily':
      return { first: day, next: day + 1, key: `${c.y}-${pad(c.mo)}-${pad(c.d)}` };
    case 'weekly': {
      const monday = day - c.dow;
      const thursday = civil(monday + 3);
      const week = Math.floor((monday + 3 - dayNumber(thursday.y, 1, 1)) / 7) + 1;
      return { first: monday, next: monday + 7, key: `${thursday.y}-W${pad(week)}` };
    }
    case 'monthly':
      return { first: dayNumber(c.y, c.mo, 1), next: dayNumber(c.y, c.mo + 1, 1), key: `${c.y}-${pad(c.mo)}` };
    case 'quarterly': {
      const q = Math.floor((c.mo - 1) / 3);
      return { first: dayNumber(c.y, 3 * q + 1, 1), next: dayNumber(c.y, 3 * q + 4, 1), key: `${c.y}-Q${q + 1}` };
    }
    case 'yearly':
      return { first: dayNumber(c.y, 1, 1), next: dayNumber(c.y + 1, 1, 1), key: `${c.y}` };
  }
}

/** A snapshot of every window around one local day; reused while `now` stays in that day. */
export interface CalendarDay {
  readonly tz: string;
  readonly start: number;
  readonly end: number;
  readonly day: number;
  /** Bounds by `SPEND_WINDOWS` index, filled on first use. */
  readonly windows: (WindowBounds | undefined)[];
}

const lastDay = new Map<string, CalendarDay>();

/** The calendar day containing `t` in `tz` (memoised: one comparison on the hot path). */
export function calendarDay(t: number, tz: string): CalendarDay {
  const last = lastDay.get(tz);
  if (last !== undefined && t >= last.start && t < last.end) return last;
  const day = localDay(t, tz);
  const snap: CalendarDay = {
    tz,
    day,
    start: startOfLocalDay(day, tz),
    end: startOfLocalDay(day + 1, tz),
    windows: [undefined, undefined, undefined, undefined, undefined],
  };
  lastDay.set(tz, snap);
  return snap;
}

/** The bounds of `window` in a calendar day snapshot. */
export function boundsIn(cal: CalendarDay, window: SpendWindow): WindowBounds {
  return boundsAt(cal, SPEND_WINDOWS.indexOf(window));
}

/** `boundsIn` by window index (`SPEND_WINDOWS` order): the hot path's lookup. */
export function boundsAt(cal: CalendarDay, windowIdx: number): WindowBounds {
  const hit = cal.windows[windowIdx];
  if (hit !== undefined) return hit;
  const window = SPEND_WINDOWS[windowIdx] as SpendWindow;
  const { first, next, key } = windowDays(window as CalendarWindow, cal.day);
  const b: WindowBounds = { window, key, start: startOfLocalDay(first, cal.tz), end: startOfLocalDay(next, cal.tz), counterKeys: [key] };
  cal.windows[windowIdx] = b;
  return b;
}

/**
 * The window containing `now`: a calendar window in `timezone` (`[start, end)` and its key), or
 * a rolling window ending at `now` (see `rollingBounds`; the time zone does not matter).
 */
export function windowBounds(window: SpendWindow, now: Instant, timezone: string): WindowBounds {
  if (isRollingWindow(window)) return rollingBounds(window, toEpochMs(now));
  return boundsIn(calendarDay(toEpochMs(now), timezone), window);
}

/** The stable key of the window containing `now`, e.g. `2026-11`, `2026-W48`, `2026-11-29` (`rolling_24h` for a rolling one). */
export function windowKey(window: SpendWindow, now: Instant, timezone: string): string {
  return windowBounds(window, now, timezone).key;
}

/** Every calendar window's key at `now`. */
export function windowKeys(now: Instant, timezone: string): Record<CalendarWindow, string> {
  const cal = calendarDay(toEpochMs(now), timezone);
  return {
    daily: boundsIn(cal, 'daily').key,
    weekly: boundsIn(cal, 'weekly').key,
    monthly: boundsIn(cal, 'monthly').key,
    quarterly: boundsIn(cal, 'quarterly').key,
    yearly: boundsIn(cal, 'yearly').key,
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** True for `YYYY-MM-DD` (a real date) or an ISO date-time with `Z` or an offset. */
export function isPolicyDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m !== null) {
    const c = civil(dayNumber(Number(m[1]), Number(m[2]), Number(m[3])));
    return c.y === Number(m[1]) && c.mo === Number(m[2]) && c.d === Number(m[3]);
  }
  return DATE_TIME.test(s) && Number.isFinite(Date.parse(s));
}

/**
 * A policy date as an instant. A date-time is exact. A bare date is a local calendar day in
 * `tz`: as a start it means the day's first instant; as an end it is inclusive, so it means
 * the first instant of the following day.
 */
export function policyInstant(s: string, tz: string, as: 'start' | 'end'): number {
  const m = DATE.exec(s);
  if (m === null) return Date.parse(s);
  const day = dayNumber(Number(m[1]), Number(m[2]), Number(m[3]));
  return startOfLocalDay(as === 'start' ? day : day + 1, tz);
}

const HOUR_MS = 3_600_000;

/**
 * Rolling windows are sums of UTC bucket counters: `rolling_24h` of the current hour and the 24
 * before it (hour buckets, keys like `2026-11-29T17`), `rolling_7d` of the current six hours and
 * the 28 blocks before it (six-hour buckets starting at 00, 06, 12 and 18 UTC, keys like
 * `2026-11-29T12/6h`). The oldest bucket is counted whole, so a rolling window reaches back a
 * little more than 24 hours (at most one hour more) or 7 days (at most six hours more): it may
 * over-count by the spend of that part of a bucket, never under-count.
 */
export const ROLLING: Readonly<Record<RollingWindow, { bucketMs: number; buckets: number; spanMs: number }>> = {
  rolling_24h: { bucketMs: HOUR_MS, buckets: 25, spanMs: 24 * HOUR_MS },
  rolling_7d: { bucketMs: 6 * HOUR_MS, buckets: 29, spanMs: 7 * 24 * HOUR_MS },
};

/** The key of the bucket of `window` starting at `start` (epoch ms, a bucket boundary). */
function bucketKey(window: RollingWindow, start: number): string {
  const iso = new Date(start).toISOString(); // 2026-11-29T17:00:00.000Z
  return window === 'rolling_24h' ? iso.slice(0, 13) : `${iso.slice(0, 13)}/6h`;
}

const rollingMemo = new Map<RollingWindow, WindowBounds>();

/** The rolling `window` at instant `t`: its buckets, oldest first (memoised per bucket). */
export function rollingBounds(window: RollingWindow, t: number): WindowBounds {
  const { bucketMs, buckets } = ROLLING[window];
  const current = Math.floor(t / bucketMs) * bucketMs;
  const hit = rollingMemo.get(window);
  if (hit !== undefined && hit.end === current + bucketMs) return hit;
  const start = current - (buckets - 1) * bucketMs;
  const counterKeys = Object.freeze(Array.from({ length: buckets }, (_, i) => bucketKey(window, start + i * bucketMs)));
  const b: WindowBounds = { window, key: window, start, end: current + bucketMs, counterKeys };
  rollingMemo.set(window, b);
  return b;
}

/** A bucket counter a settle charges, and how long it must live to be summed by every window that reads it. */
export interface BucketCharge {
  key: string;
  ttlMs: number;
}

/**
 * The rolling-window buckets a cost at `now` goes into: one hour bucket and one six-hour
 * bucket, each living a little longer than the windows that sum it.
 */
export function bucketCharges(now: Instant): readonly BucketCharge[] {
  const t = toEpochMs(now);
  return (['rolling_24h', 'rolling_7d'] as const).map((w) => {
    const b = rollingBounds(w, t);
    const r = ROLLING[w];
    return { key: b.counterKeys[b.counterKeys.length - 1] as string, ttlMs: r.spanMs + 2 * r.bucketMs + HOUR_MS };
  });
}
