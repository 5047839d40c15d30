/**
 * `new Date(ms).toISOString()`, without a `Date` per call for instants in years 1970 to 9999:
 * the text up to the seconds is kept for the last second seen (records written in one second
 * share it) and the milliseconds are put after it. Anything else (negative, past year 9999,
 * not a time) is left to `Date`, which formats or throws as it always does.
 */
let lastSecond = Number.NaN;
let lastPrefix = '';

/** Year 10000, 00:00 UTC: from there on `toISOString` writes six-digit years. */
const YEAR_10000 = 253_402_300_800_000;

export function isoTime(ms: number): string {
  // `Date` drops the fraction (towards zero) before it formats.
  const t = Math.trunc(ms);
  if (!(t >= 0 && t < YEAR_10000)) return new Date(ms).toISOString();
  const second = Math.floor(t / 1000);
  if (second !== lastSecond) {
    lastPrefix = new Date(t).toISOString().slice(0, 20); // "2026-12-02T03:31:14."
    lastSecond = second;
  }
  const milli = t - second * 1000;
  return `${lastPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
