/**
 * Detectors over digit groups (see digits.ts): payment cards, US social security numbers,
 * phone numbers and IPv4 addresses. Each tries a bounded number of group windows per group, so
 * the scan is linear in the text. Checksums and number plans keep false positives down: a
 * 16-digit order number that fails Luhn is not a card; 000-12-3456 is not an SSN.
 */
import { at, isAlpha, isWord, luhnValid } from './chars.js';
import { digitGroups, digitsOf, groupLength, type DigitGroups } from './digits.js';
import type { Detector, Finding } from './types.js';

/**
 * No letter glued to either end (a hash, a version like v1.2.3.4). An underscore separates, as
 * in `get_4111111111111111` or `4111_1111_1111_1111`: a number is read out of a snake-case name.
 */
function freeStanding(text: string, start: number, end: number): boolean {
  const before = at(text, start - 1);
  const after = at(text, end);
  return !(before >= 0 && isAlpha(before)) && !(after >= 0 && isAlpha(after));
}

/** The issuer prefixes of the card networks in use (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
function plausibleIssuer(digits: string): boolean {
  const d = digits.charCodeAt(0) - 48;
  if (d >= 3 && d <= 6) return d !== 3 || '0456789'.includes(digits[1]!);
  if (d === 2) {
    const p = Number(digits.slice(0, 4));
    return p >= 2221 && p <= 2720;
  }
  return false;
}

export const creditCard: Detector = {
  entity: 'credit_card',
  maxLength: 19 + 6,
  scan(text: string, out: Finding[]): void {
    const g = digitGroups(text);
    let i = 0;
    while (i < g.count) {
      const found = cardAt(text, g, i);
      if (found < 0) {
        i++;
        continue;
      }
      out.push({ entity: 'credit_card', start: g.starts[i]!, end: g.ends[found]! });
      i = found + 1;
    }
  },
};

/** The first `n` digits of groups i.. (fewer if they run out). */
function leadingDigits(text: string, g: DigitGroups, i: number, n: number): string {
  let s = '';
  for (let k = i; k < g.count && s.length < n; k++) s += text.slice(g.starts[k], Math.min(g.ends[k]!, g.starts[k]! + n - s.length));
  return s;
}

/** The last group of a card starting at group i, or -1. Longest window first. */
function cardAt(text: string, g: DigitGroups, i: number): number {
  const first = groupLength(g, i);
  if (first > 19) return -1;
  if (!plausibleIssuer(leadingDigits(text, g, i, 4))) return -1;
  let last = i;
  let total = first;
  const sep = g.gaps[i + 1];
  if (first <= 6 && (sep === ' ' || sep === '-')) {
    while (last + 1 < g.count && g.gaps[last + 1] === sep && total + groupLength(g, last + 1) <= 19) total += groupLength(g, ++last);
  } else if (first <= 6 && (sep === '_' || sep === '.' || sep === '/')) {
    // Grouped by `4111_1111_1111_1111`, `4111.1111.1111.1111`, `4111/1111/1111/1111`: the whole
    // run, each group as a card prints it (at most 6 digits), so a decimal (`5.1234567890123`), a
    // version or an OID is not read as a card.
    if (g.gaps[i] === sep) return -1;
    while (last + 1 < g.count && g.gaps[last + 1] === sep) {
      const len = groupLength(g, last + 1);
      if (len > 6 || total + len > 19) return -1;
      total += len;
      last++;
    }
    return total >= 13 && freeStanding(text, g.starts[i]!, g.ends[last]!) && luhnValid(digitsOf(text, g, i, last)) ? last : -1;
  }
  for (let j = last; j >= i; j--) {
    if (total >= 13 && freeStanding(text, g.starts[i]!, g.ends[j]!) && luhnValid(digitsOf(text, g, i, j))) return j;
    total -= groupLength(g, j);
    if (total < 13) return -1;
  }
  return -1;
}

/** SSNs the SSA never issued that circulate as examples. */
const EXAMPLE_SSNS = new Set(['078051120', '219099999', '123456789']);

export const usSsn: Detector = {
  entity: 'us_ssn',
  maxLength: 11,
  scan(text: string, out: Finding[]): void {
    const g = digitGroups(text);
    for (let i = 0; i + 2 < g.count; i++) {
      if (groupLength(g, i) !== 3 || groupLength(g, i + 1) !== 2 || groupLength(g, i + 2) !== 4) continue;
      const sep = g.gaps[i + 1];
      if ((sep !== '-' && sep !== ' ') || g.gaps[i + 2] !== sep) continue;
      if (g.gaps[i] === sep || g.gaps[i + 3] === sep) continue; // part of a longer number
      const start = g.starts[i]!;
      const end = g.ends[i + 2]!;
      if (!freeStanding(text, start, end)) continue;
      const area = Number(text.slice(start, start + 3));
      const group = text.slice(g.starts[i + 1], g.ends[i + 1]);
      const serial = text.slice(g.starts[i + 2], end);
      if (area === 0 || area === 666 || area >= 900 || group === '00' || serial === '0000') continue;
      if (EXAMPLE_SSNS.has(digitsOf(text, g, i, i + 2))) continue;
      out.push({ entity: 'us_ssn', start, end });
      i += 2;
    }
  },
};

function octet(text: string, g: DigitGroups, k: number): boolean {
  const len = groupLength(g, k);
  if (len < 1 || len > 3) return false;
  const s = g.starts[k]!;
  if (len > 1 && text.charCodeAt(s) === 48) return false;
  return Number(text.slice(s, g.ends[k])) <= 255;
}

export const ipv4: Detector = {
  entity: 'ipv4',
  maxLength: 15,
  scan(text: string, out: Finding[]): void {
    const g = digitGroups(text);
    for (let i = 0; i + 3 < g.count; i++) {
      if (g.gaps[i + 1] !== '.' || g.gaps[i + 2] !== '.' || g.gaps[i + 3] !== '.') continue;
      if (g.gaps[i] === '.' || g.gaps[i + 4] === '.') continue; // a longer dotted number (a version, an OID)
      if (!octet(text, g, i) || !octet(text, g, i + 1) || !octet(text, g, i + 2) || !octet(text, g, i + 3)) continue;
      const start = g.starts[i]!;
      const end = g.ends[i + 3]!;
      if (!freeStanding(text, start, end)) continue;
      out.push({ entity: 'ipv4', start, end });
      i += 3;
    }
  },
};

const SEPARATORS = new Set([' ', '-', '.']);

/**
 * Phone numbers: international (`+` and 8 to 15 digits, grouped any way), North American
 * (`(415) 555-2671`, `415-555-2671`, `1 415 555 2671`), and national numbers with a trunk
 * prefix (`020 7946 0958`, `01 23 45 67 89`). A bare run of digits is not taken for a phone.
 */
export const phone: Detector = {
  entity: 'phone',
  maxLength: 24,
  scan(text: string, out: Finding[]): void {
    const g = digitGroups(text);
    let i = 0;
    while (i < g.count) {
      const m = international(text, g, i) ?? northAmerican(text, g, i) ?? national(text, g, i);
      if (m === null) {
        i++;
        continue;
      }
      out.push({ entity: 'phone', start: m.start, end: g.ends[m.last]! });
      i = m.last + 1;
    }
  },
};

interface PhoneMatch {
  start: number;
  last: number;
}

/** Gaps inside a phone number: a separator, or parentheses around an area or trunk code. */
const PHONE_GAPS = new Set([' ', '-', '.', '(', ')', ' (', ') ', ')-', '-(']);

function international(text: string, g: DigitGroups, i: number): PhoneMatch | null {
  const start = g.starts[i]! - 1;
  if (at(text, start) !== 43 || isWord(at(text, start - 1))) return null;
  let total = groupLength(g, i);
  let j = i;
  while (j + 1 < g.count && PHONE_GAPS.has(g.gaps[j + 1]!)) {
    if (total + groupLength(g, j + 1) > 15) return null; // longer than any number plan
    j++;
    total += groupLength(g, j);
  }
  if (total < 8) return null;
  if (!freeStanding(text, start, g.ends[j]!)) return null;
  return { start, last: j };
}

function northAmerican(text: string, g: DigitGroups, i: number): PhoneMatch | null {
  let a = i;
  if (groupLength(g, i) === 1 && text.charCodeAt(g.starts[i]!) === 49 && SEPARATORS.has(g.gaps[i + 1] ?? '')) a = i + 1;
  if (a + 2 >= g.count) return null;
  if (groupLength(g, a) !== 3 || groupLength(g, a + 1) !== 3 || groupLength(g, a + 2) !== 4) return null;
  const paren = at(text, g.starts[a]! - 1) === 40;
  const g1 = g.gaps[a + 1]!;
  const g2 = g.gaps[a + 2]!;
  if (paren ? g1 !== ')' && g1 !== ') ' && g1 !== ')-' : !SEPARATORS.has(g1)) return null;
  if (!SEPARATORS.has(g2)) return null;
  if (a === i && !paren && g.gaps[i] !== '' && SEPARATORS.has(g.gaps[i]!)) return null; // preceded by more digits
  if (a + 3 < g.count && SEPARATORS.has(g.gaps[a + 3]!)) return null; // followed by more digits
  const area = text.charCodeAt(g.starts[a]!) - 48;
  const exchange = text.charCodeAt(g.starts[a + 1]!) - 48;
  if (area < 2 || exchange < 2) return null;
  const start = a === i && paren ? g.starts[a]! - 1 : g.starts[i]!;
  if (!freeStanding(text, start, g.ends[a + 2]!)) return null;
  return { start, last: a + 2 };
}

function national(text: string, g: DigitGroups, i: number): PhoneMatch | null {
  const first = groupLength(g, i);
  if (first < 2 || first > 5 || text.charCodeAt(g.starts[i]!) !== 48) return null;
  const sep = g.gaps[i + 1];
  if (sep === undefined || !SEPARATORS.has(sep)) return null;
  if (g.gaps[i] === sep) return null;
  let total = first;
  let j = i;
  while (j + 1 < g.count && g.gaps[j + 1] === sep && total + groupLength(g, j + 1) <= 11) {
    j++;
    total += groupLength(g, j);
  }
  if (j === i || total < 10 || total > 11) return null;
  if (j + 1 < g.count && g.gaps[j + 1] === sep) return null;
  if (!freeStanding(text, g.starts[i]!, g.ends[j]!)) return null;
  return { start: g.starts[i]!, last: j };
}
