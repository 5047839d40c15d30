/**
 * International bank account numbers: a country code, two check digits and the country's
 * fixed-length account part, written whole or in groups of four; the country's length and the
 * ISO 13616 mod-97 check must hold. Upper case only (as banks print them), so hex hashes and
 * lower-case tokens are not read as accounts.
 */
import { at, isAlnum, isDigit, isUpper } from './chars.js';
import type { Detector, Finding } from './types.js';

/** Total IBAN length by country (the SWIFT IBAN registry). */
const LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** The ISO 13616 check: the account part, then the country and check digits, as a number mod 97 is 1. */
export function ibanValid(compact: string): boolean {
  const s = compact.slice(4) + compact.slice(0, 4);
  let r = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) r = (r * 10 + (c - 48)) % 97;
    else r = (r * 100 + (c - 55)) % 97;
  }
  return r === 1;
}

/** The two check digits that make `country + '00' + bban` valid. */
export function ibanCheckDigits(country: string, bban: string): string {
  let r = 0;
  const s = bban + country + '00';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    r = isDigit(c) ? (r * 10 + (c - 48)) % 97 : (r * 100 + (c - 55)) % 97;
  }
  return String(98 - r).padStart(2, '0');
}

const TRIGGER = /[A-Z]{2}[0-9]{2}/g;

export const iban: Detector = {
  entity: 'iban',
  // 34 characters and a space between every four.
  maxLength: 34 + 8,
  scan(text: string, out: Finding[]): void {
    TRIGGER.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = TRIGGER.exec(text)) !== null) {
      const start = m.index;
      const length = LENGTHS[m[0].slice(0, 2)];
      if (length === undefined || isAlnum(at(text, start - 1))) {
        TRIGGER.lastIndex = start + 1;
        continue;
      }
      let compact = '';
      let i = start;
      while (i < text.length && compact.length < length) {
        const c = text.charCodeAt(i);
        if (isDigit(c) || isUpper(c)) {
          compact += text[i];
          i++;
        } else if (c === 32 && compact.length >= 4 && i + 1 < text.length && isAlnum(text.charCodeAt(i + 1))) {
          i++;
        } else break;
      }
      if (compact.length === length && !isAlnum(at(text, i)) && ibanValid(compact)) {
        out.push({ entity: 'iban', start, end: i });
        TRIGGER.lastIndex = i;
      } else {
        TRIGGER.lastIndex = start + 1;
      }
    }
  },
};
