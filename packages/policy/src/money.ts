/**
 * Money is integer micro-USD. Amounts in policy files are decimal USD strings ("90", "12.5",
 * "0.000001") parsed exactly — never through floating point.
 */

const USD = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,6}))?$/;

/** Micro-USD per USD. */
export const MICROS_PER_USD = 1_000_000;

/**
 * Parse a non-negative decimal USD string into integer micro-USD.
 * Returns `undefined` for anything else: signs, exponents, more than 6 decimals, spaces,
 * or amounts above `Number.MAX_SAFE_INTEGER` micros.
 */
export function parseUsdMicros(usd: string): number | undefined {
  if (typeof usd !== 'string') return undefined;
  const m = USD.exec(usd);
  if (m === null) return undefined;
  const whole = m[1] as string;
  const frac = (m[2] ?? '').padEnd(6, '0');
  // Digits are concatenated as text, so no float rounding ever happens.
  const digits = whole === '0' ? frac.replace(/^0+(?=.)/, '') : whole + frac;
  if (digits.length > 16) return undefined;
  const micros = Number(digits);
  return Number.isSafeInteger(micros) ? micros : undefined;
}

/** Format integer micro-USD as the shortest exact decimal USD string ("12.5", "0.000001"). */
export function formatMicros(micros: number): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`not an integer micro-USD amount: ${micros}`);
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const frac = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac === '' ? `${sign}${whole}` : `${sign}${whole}.${frac}`;
}
