/**
 * Email addresses: found from each `@`, the local part read leftwards (at most 64 characters)
 * and the domain rightwards (at most 253): labels of letters, digits and hyphens, at least two,
 * the last alphabetic. Each `@` reads a bounded stretch, so the scan is linear.
 */
import { at, isAlnum, isAlpha } from './chars.js';
import type { Detector, Finding } from './types.js';

const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

/** Local-part characters (RFC 5322 atext as written in practice, plus dots). */
function isLocal(c: number): boolean {
  return isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 || c === 39;
}

function isDomain(c: number): boolean {
  return isAlnum(c) || c === 45 || c === 46;
}

/** The end of a valid domain starting at `from`, or -1. */
function domainEnd(text: string, from: number): number {
  let end = from;
  const limit = Math.min(text.length, from + MAX_DOMAIN);
  while (end < limit && isDomain(text.charCodeAt(end))) end++;
  // A sentence may end right after the address; hyphens cannot end a domain either.
  while (end > from && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
  if (end === from) return -1;
  let labels = 0;
  let labelStart = from;
  let lastAlpha = true;
  for (let i = from; i <= end; i++) {
    if (i === end || text.charCodeAt(i) === 46) {
      const len = i - labelStart;
      if (len === 0 || len > 63) return -1;
      if (text.charCodeAt(labelStart) === 45 || text.charCodeAt(i - 1) === 45) return -1;
      labels++;
      lastAlpha = true;
      for (let k = labelStart; k < i; k++) if (!isAlpha(text.charCodeAt(k))) lastAlpha = false;
      lastAlpha = lastAlpha && len >= 2;
      labelStart = i + 1;
    }
  }
  return labels >= 2 && lastAlpha ? end : -1;
}

export const email: Detector = {
  entity: 'email',
  maxLength: MAX_LOCAL + 1 + MAX_DOMAIN,
  scan(text: string, out: Finding[]): void {
    let from = 0;
    let floor = 0; // nothing before the end of the last finding is read again
    for (;;) {
      const a = text.indexOf('@', from);
      if (a < 0) return;
      from = a + 1;
      let start = a;
      const stop = Math.max(floor, a - MAX_LOCAL);
      while (start > stop && isLocal(text.charCodeAt(start - 1))) start--;
      while (start < a && text.charCodeAt(start) === 46) start++;
      if (start === a || text.charCodeAt(a - 1) === 46) continue;
      // Longer than 64 characters of local part: not an address.
      if (start === a - MAX_LOCAL && isLocal(at(text, start - 1))) continue;
      const end = domainEnd(text, a + 1);
      if (end < 0) continue;
      // A digit or letter run glued on after the TLD (no boundary) was cut by the bound: skip.
      const next = at(text, end);
      if (next >= 0 && (isAlnum(next) || next === 64)) continue;
      out.push({ entity: 'email', start, end });
      floor = end;
      from = end;
    }
  },
};
