/**
 * Digit groups: the runs of ASCII digits in a text, each with the short gap (one or two of
 * space, hyphen, dot, slash, underscore or parentheses) that joins it to the group before, if any. Card,
 * SSN, phone and IPv4 detectors read the same groups; they are computed once per text (the last
 * text is remembered), in one linear pass.
 */
export interface DigitGroups {
  /** Start and end (exclusive) of each group: starts[i], ends[i]. */
  starts: Int32Array;
  ends: Int32Array;
  /** The gap joining group i to group i-1, as text; '' when the groups are not joined. */
  gaps: string[];
  count: number;
}

const isGapChar = (c: number): boolean => c === 32 || c === 45 || c === 46 || c === 47 || c === 95 || c === 40 || c === 41;

let lastText: string | null = null;
let last: DigitGroups | null = null;

/** Finds the next digit: native scanning skips prose several times faster than a char-code loop. */
const NEXT_DIGIT = /[0-9]/g;

function grow(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

export function digitGroups(text: string): DigitGroups {
  if (text === lastText && last !== null) return last;
  let starts: Int32Array = new Int32Array(16);
  let ends: Int32Array = new Int32Array(16);
  const gaps: string[] = [];
  let count = 0;
  const n = text.length;
  let i = 0;
  let prevEnd = -3;
  for (;;) {
    // The next group: within two characters of the last one it is found by hand (digit-dense
    // text, tables), farther away by the regex engine (prose).
    let s = -1;
    for (let j = i; j < n && j < i + 3; j++) {
      const c = text.charCodeAt(j);
      if (c >= 48 && c <= 57) {
        s = j;
        break;
      }
    }
    if (s < 0) {
      if (i + 3 >= n) break;
      NEXT_DIGIT.lastIndex = i + 3;
      if (!NEXT_DIGIT.test(text)) break;
      s = NEXT_DIGIT.lastIndex - 1;
    }
    i = s + 1;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      i++;
    }
    let gap = '';
    const len = s - prevEnd;
    if (len === 1) {
      if (isGapChar(text.charCodeAt(prevEnd))) gap = text[prevEnd]!;
    } else if (len === 2) {
      if (isGapChar(text.charCodeAt(prevEnd)) && isGapChar(text.charCodeAt(prevEnd + 1))) gap = text.slice(prevEnd, s);
    }
    if (count === starts.length) {
      starts = grow(starts);
      ends = grow(ends);
    }
    starts[count] = s;
    ends[count] = i;
    count++;
    gaps.push(gap);
    prevEnd = i;
  }
  last = { starts: starts.subarray(0, count), ends: ends.subarray(0, count), gaps, count };
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
