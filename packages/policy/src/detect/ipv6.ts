/**
 * IPv6 addresses: found from each `:`, read over hex digits, colons and dots (an embedded IPv4
 * tail) at most 45 characters each way, then parsed strictly: eight groups, or fewer with one
 * `::`. Times (10:30:45), MAC addresses and `std::map` are not addresses.
 */
import { at, isHex, isWord } from './chars.js';
import type { Detector, Finding } from './types.js';

const MAX = 45;
const isAddrChar = (c: number): boolean => isHex(c) || c === 58 || c === 46;

function ipv4Tail(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(?:0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

export function parseIpv6(s: string): boolean {
  if (s.length < 2 || s.length > MAX) return false;
  const double = s.indexOf('::');
  if (double >= 0 && s.indexOf('::', double + 1) >= 0) return false;
  if (s.includes(':::')) return false;
  let groups = 0;
  const halves = double >= 0 ? [s.slice(0, double), s.slice(double + 2)] : [s];
  for (let h = 0; h < halves.length; h++) {
    const half = halves[h]!;
    if (half === '') continue;
    const parts = half.split(':');
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!;
      if (k === parts.length - 1 && h === halves.length - 1 && p.includes('.')) {
        if (!ipv4Tail(p)) return false;
        groups += 2;
        continue;
      }
      if (p.length < 1 || p.length > 4) return false;
      for (let i = 0; i < p.length; i++) if (!isHex(p.charCodeAt(i))) return false;
      groups++;
    }
  }
  if (double >= 0) return groups <= 7 && groups >= 1;
  return groups === 8;
}

export const ipv6: Detector = {
  entity: 'ipv6',
  maxLength: MAX,
  scan(text: string, out: Finding[]): void {
    let from = 0;
    let floor = 0;
    for (;;) {
      const colon = text.indexOf(':', from);
      if (colon < 0) return;
      let start = colon;
      const stop = Math.max(floor, colon - MAX);
      while (start > stop && isAddrChar(text.charCodeAt(start - 1))) start--;
      let end = colon + 1;
      const limit = Math.min(text.length, start + MAX + 1);
      while (end < limit && isAddrChar(text.charCodeAt(end))) end++;
      from = end;
      // Trailing punctuation of a sentence is not part of the address.
      let e = end;
      while (e > colon + 1 && text.charCodeAt(e - 1) === 46) e--;
      let s = start;
      while (s < colon && text.charCodeAt(s) === 46) s++;
      if (isWord(at(text, s - 1)) || isWord(at(text, e)) || at(text, e) === 58) continue;
      const candidate = text.slice(s, e);
      if (!parseIpv6(candidate)) continue;
      out.push({ entity: 'ipv6', start: s, end: e });
      floor = e;
    }
  },
};
