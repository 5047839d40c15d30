/**
 * Exact non-negative decimals for prices. A value is `units / 10^scale` with `units` a
 * BigInt, so "0.1", "3.75" or "0.000000375" are represented exactly and arithmetic on them
 * never goes through binary floating point.
 */
export interface Decimal {
  /** The digits as an integer. */
  readonly units: bigint;
  /** How many of those digits are after the decimal point. */
  readonly scale: number;
}

/** Strings: plain non-negative decimals, no sign, exponent or spaces ("3", "0.30", "22.50"). */
export const DECIMAL_STRING_PATTERN = /^[0-9]+(?:\.[0-9]+)?$/;
const DECIMAL_STRING = DECIMAL_STRING_PATTERN;
/** What `String(n)` gives for a finite non-negative number ("0.3", "1e-7", "1.5e+21"). */
const NUMBER_STRING = /^([0-9]+)(?:\.([0-9]+))?(?:e([+-]?[0-9]+))?$/;

/** Registries repeat a few price strings many times; results are frozen, so they are shared. */
const STRING_CACHE = new Map<string, Decimal>();

/**
 * Parse a price exactly. A string must be a plain decimal; a number is taken through its
 * shortest round-trip decimal string (`String(0.3)` is "0.3"), never through float arithmetic.
 * Returns `undefined` for anything else (negative, non-finite, malformed).
 */
export function parseDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'string') {
    let d = STRING_CACHE.get(value);
    if (d === undefined) {
      if (!DECIMAL_STRING.test(value)) return undefined;
      d = fromParts(value, 0);
      if (STRING_CACHE.size >= 4096) STRING_CACHE.clear();
      STRING_CACHE.set(value, d);
    }
    return d;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    const m = NUMBER_STRING.exec(String(value === 0 ? 0 : value));
    if (m === null) return undefined;
    const mantissa = m[2] === undefined ? (m[1] as string) : `${m[1]}.${m[2]}`;
    return fromParts(mantissa, m[3] === undefined ? 0 : Number(m[3]));
  }
  return undefined;
}

/** "12.340" with exponent e → the normalised decimal (trailing fraction zeros dropped). */
function fromParts(mantissa: string, exponent: number): Decimal {
  const dot = mantissa.indexOf('.');
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const frac = dot < 0 ? '' : mantissa.slice(dot + 1);
  let units = BigInt(whole + frac);
  let scale = frac.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalise(units, scale);
}

function normalise(units: bigint, scale: number): Decimal {
  if (units === 0n) return ZERO;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return Object.freeze({ units, scale });
}

export const ZERO: Decimal = Object.freeze({ units: 0n, scale: 0 });

/** True for a value shaped like a `Decimal`. */
export function isDecimal(value: unknown): value is Decimal {
  return typeof value === 'object' && value !== null && typeof (value as Decimal).units === 'bigint' && typeof (value as Decimal).scale === 'number';
}

/** -1, 0 or 1 as a is below, equal to or above b. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The largest of the given decimals (ZERO for none). */
export function maxDecimal(...values: readonly Decimal[]): Decimal {
  let best = ZERO;
  for (const v of values) if (compareDecimal(v, best) > 0) best = v;
  return best;
}

/** The decimal as a plain string ("0.3", "22.5", "3"). */
export function formatDecimal(d: Decimal): string {
  if (d.scale === 0) return d.units.toString();
  const digits = d.units.toString().padStart(d.scale + 1, '0');
  return `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`;
}

/**
 * ⌈tokens × rate⌉ where rate is in USD per million tokens: the result is micro-USD, rounded
 * up to a whole micro-USD. `tokens` must be a non-negative integer count.
 */
export function ceilTimes(tokens: bigint, rate: Decimal): bigint {
  if (tokens === 0n || rate.units === 0n) return 0n;
  const numerator = tokens * rate.units;
  if (rate.scale === 0) return numerator;
  const denominator = pow10(rate.scale);
  return (numerator + denominator - 1n) / denominator;
}

function align(a: Decimal, b: Decimal): [bigint, bigint] {
  if (a.scale === b.scale) return [a.units, b.units];
  return a.scale < b.scale ? [a.units * pow10(b.scale - a.scale), b.units] : [a.units, b.units * pow10(a.scale - b.scale)];
}

const POW10: bigint[] = [];
function pow10(n: number): bigint {
  let p = POW10[n];
  if (p === undefined) {
    p = 10n ** BigInt(n);
    if (n < 64) POW10[n] = p;
  }
  return p;
}
