/**
 * Digit groups: the runs of ASCII digits in a text, each with the short gap (one or two of
 * space, hyphen, dot, slash or parentheses) that joins it to the group before, if any. Card,
 * SSN, phone and IPv4 detectors read the same groups; they are computed once per text (the last
 * text is remembered), in one linear pass.
 */
import { isDigit } from './chars.js';

export interface DigitGroups {
  /** Start and end (exclusive) of each group: starts[i], ends[i]. */
  starts: Int32Array;
  ends: Int32Array;
  /** The gap joining group i to group i-1, as text; '' when the groups are not joined. */
  gaps: string[];
  count: number;
}

const isGapChar = (c: number): boolean => c === 32 || c === 45 || c === 46 || c === 47 || c === 40 || c === 41;

let lastText: string | null = null;
let last: DigitGroups | null = null;

export function digitGroups(text: string): DigitGroups {
  if (text === lastText && last !== null) return last;
  const starts: number[] = [];
  const ends: number[] = [];
  const gaps: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const s = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    let gap = '';
    const k = starts.length;
    if (k > 0) {
      const prevEnd = ends[k - 1]!;
      const len = s - prevEnd;
      if (len >= 1 && len <= 2) {
        let ok = true;
        for (let j = prevEnd; j < s; j++) if (!isGapChar(text.charCodeAt(j))) ok = false;
        if (ok) gap = text.slice(prevEnd, s);
      }
    }
    starts.push(s);
    ends.push(i);
    gaps.push(gap);
  }
  last = { starts: Int32Array.from(starts), ends: Int32Array.from(ends), gaps, count: starts.length };
  lastText = text;
  return last;
}

/** Digits of groups i..j (inclusive) as one string. */
export function digitsOf(text: string, g: DigitGroups, i: number, j: number): string {
  let s = '';
  for (let k = i; k <= j; k++) s += text.slice(g.starts[k], g.ends[k]);
  return s;
}

export const groupLength = (g: DigitGroups, i: number): number => g.ends[i]! - g.starts[i]!;
