/**
 * Format-preserving surrogates for `pseudonymize`: an email stays an email (at a reserved
 * `.example` domain), a card number keeps its issuer digits and passes Luhn, an IBAN keeps its
 * country and passes mod-97, a phone keeps its layout, an IP address lands in a reserved
 * range, a key keeps its prefix. The surrogate is a pure function of the value and a seed: the
 * gateway derives the seed from a keyed hash of the value, so one value gets one surrogate.
 */
import { isDigit, isLower, isUpper, luhnValid } from './chars.js';
import { ibanCheckDigits } from './iban.js';

/** A small deterministic generator (xorshift128) over a seed of at least 16 bytes. */
export function createPrng(seed: Uint8Array): () => number {
  const word = (i: number) => ((seed[i]! << 24) | (seed[i + 1]! << 16) | (seed[i + 2]! << 8) | seed[i + 3]!) >>> 0;
  let a = word(0) || 0x9e3779b9;
  let b = word(4) || 0x243f6a88;
  let c = word(8) || 0xb7e15162;
  let d = word(12) || 0x85a308d3;
  return () => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;

    return d;
  };
}

type Rand = () => number;
const pick = (rand: Rand, n: number): number => rand() % n;
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const ALNUM = LOWER + '0123456789';

/** Each digit, upper and lower case letter replaced by a random one of its class; the rest kept. */
function scramble(s: string, rand: Rand, from = 0, to = s.length): string {
  let out = s.slice(0, from);
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) out += String(pick(rand, 10));
    else if (isUpper(c)) out += UPPER[pick(rand, 26)];
    else if (isLower(c)) out += LOWER[pick(rand, 26)];
    else out += s[i];
  }
  return out + s.slice(to);
}

function randomWord(rand: Rand, n: number, alphabet = ALNUM): string {
  let s = LOWER[pick(rand, 26)]!;
  while (s.length < n) s += alphabet[pick(rand, alphabet.length)];
  return s;
}

function email(value: string, rand: Rand): string {
  const local = value.slice(0, value.lastIndexOf('@'));
  return `${randomWord(rand, Math.max(6, Math.min(local.length, 16)))}@${randomWord(rand, 6, LOWER)}.example`;
}

/** Positions of the digits of `s`. */
function digitPositions(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) out.push(i);
  return out;
}

function setChar(s: string, i: number, ch: string): string {
  return s.slice(0, i) + ch + s.slice(i + 1);
}

function card(value: string, rand: Rand): string {
  const pos = digitPositions(value);
  // Issuer digits (first four) stay; the account digits are new; the last digit fixes Luhn.
  let s = scramble(value, rand, pos[4] ?? value.length);
  const last = pos[pos.length - 1]!;
  for (let d = 0; d < 10; d++) {
    s = setChar(s, last, String(d));
    if (luhnValid(s)) break;
  }
  return s;
}

function phone(value: string, rand: Rand): string {
  let s = scramble(value, rand);
  // Each group starts as a real number plan would: a trunk 0 stays, others start at 2–9.
  for (let i = 0; i < s.length; i++) {
    if (!isDigit(s.charCodeAt(i)) || (i > 0 && isDigit(s.charCodeAt(i - 1)))) continue;
    s = setChar(s, i, value[i] === '0' ? '0' : String(2 + pick(rand, 8)));
  }
  return s;
}

function ssn(value: string, rand: Rand): string {
  const sep = value.length === 11 ? value[3]! : '';
  let area = 1 + pick(rand, 899);
  if (area === 666) area = 667;
  const group = 1 + pick(rand, 99);
  const serial = 1 + pick(rand, 9999);
  return `${String(area).padStart(3, '0')}${sep}${String(group).padStart(2, '0')}${sep}${String(serial).padStart(4, '0')}`;
}

function iban(value: string, rand: Rand): string {
  // Country kept, account part new, check digits recomputed; spacing kept.
  const s = scramble(value, rand, 4);
  const compact = s.replace(/ /g, '');
  const check = ibanCheckDigits(compact.slice(0, 2), compact.slice(4));
  return s.slice(0, 2) + check + s.slice(4);
}

/** 198.18.0.0/15, reserved for benchmarking: never a real host. */
const ipv4 = (rand: Rand): string => `198.${18 + pick(rand, 2)}.${pick(rand, 256)}.${1 + pick(rand, 254)}`;

/** 2001:db8::/32, reserved for documentation. */
function ipv6(rand: Rand): string {
  const groups = ['2001', 'db8'];
  for (let i = 0; i < 6; i++) groups.push(pick(rand, 0x10000).toString(16));
  return groups.join(':');
}

const SECRET_PREFIXES = [
  'sk-proj-',
  'sk-ant-',
  'sk-',
  'sk_live_',
  'sk_test_',
  'rk_live_',
  'rk_test_',
  'AKIA',
  'ASIA',
  'ABIA',
  'ACCA',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'xoxa-',
  'xoxp-',
  'xoxr-',
  'xoxs-',
  'xoxe-',
  'AIza',
  'eyJ',
];

function secret(value: string, rand: Rand): string {
  if (value.startsWith('-----BEGIN ')) {
    // Header and footer lines stay; the key material is new.
    const headerEnd = value.indexOf('-----', 11) + 5;
    const footer = value.indexOf('-----END ');
    return scramble(value, rand, headerEnd, footer > headerEnd ? footer : value.length);
  }
  const prefix = SECRET_PREFIXES.find((p) => value.startsWith(p)) ?? '';
  return scramble(value, rand, prefix.length);
}

/** A custom identifier: its digits are new (EMP-123456 → EMP-803417), or its letters when it has none. */
function custom(value: string, rand: Rand): string {
  if (digitPositions(value).length > 0) {
    let out = '';
    for (let i = 0; i < value.length; i++) out += isDigit(value.charCodeAt(i)) ? String(pick(rand, 10)) : value[i];
    return out;
  }
  return scramble(value, rand);
}

/** The surrogate of one value of one entity type, from a seed of at least 16 bytes. */
export function surrogateFor(entity: string, value: string, seed: Uint8Array): string {
  const rand = createPrng(seed);
  switch (entity) {
    case 'email':
      return email(value, rand);
    case 'credit_card':
      return card(value, rand);
    case 'phone':
      return phone(value, rand);
    case 'us_ssn':
      return ssn(value, rand);
    case 'iban':
      return iban(value, rand);
    case 'ipv4':
      return ipv4(rand);
    case 'ipv6':
      return ipv6(rand);
    case 'secret':
      return secret(value, rand);
    default:
      return custom(value, rand);
  }
}
