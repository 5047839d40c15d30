/**
 * The text detectors read. A value can be disguised so that it reads the same to a person (and
 * to a model) but not to a scanner of ASCII: full-width digits `４１１１`, a full-width `＠`, an
 * en dash in `536–22–1234`, a zero-width space between a card's digits. The detectors scan a
 * folded view instead: each character in compatibility form (NFKC: full-width forms, no-break
 * spaces, circled digits), dashes read as `-`, invisible characters (zero-width spaces and
 * joiners, soft hyphens, bidirectional controls, variation selectors, tag characters) dropped,
 * and so are combining marks on an ASCII letter or digit (`4\u0301`); a long run of dropped
 * characters reads as a break (see `BREAK_RUN`).
 * Each character of the view knows which original characters it came from, so a finding is
 * reported — redacted, pseudonymized — as the original span. Text of ASCII characters only is
 * its own view: it is scanned as it is, with no copy.
 */

/** A folded view of a text, and where its characters came from. */
export interface FoldedView {
  readonly text: string;
  /** The span of the original text that the view's [start, end) was read from (end > start). */
  original(start: number, end: number): { start: number; end: number };
}

/** Characters that change nothing a person reads: dropped from the view. */
export function isInvisible(cp: number): boolean {
  if (cp < 0xad) return false;
  return (
    cp === 0xad ||
    cp === 0x34f ||
    cp === 0x61c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    (cp >= 0x180b && cp <= 0x180f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0x3164 ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

/** Dashes a person reads as a hyphen (NFKC leaves them as they are). */
const DASHES = /[\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d]/g;

/** Any character that is not ASCII: the text needs a look before it is scanned as it is. */
const NON_ASCII = /[\u0080-\uffff]/;

/** Code point → its view, or null when it is its own. A small memo: prose reuses few distinct characters. */
const memo = new Map<number, string | null>();

function fold(cp: number): string | null {
  const hit = memo.get(cp);
  if (hit !== undefined) return hit;
  let out: string | null = '';
  if (!isInvisible(cp)) {
    const ch = String.fromCodePoint(cp);
    const view = ch.normalize('NFKC').replace(DASHES, '-');
    out = view === ch ? null : view;
  }
  if (memo.size >= 4096) memo.clear();
  memo.set(cp, out);
  return out;
}

/**
 * A run of at least this many UTF-16 units of dropped characters reads as a break (one NUL
 * character, which no built-in detector reads or joins across), not as nothing: no value is
 * plausibly split by it, and it bounds how much text a stream holds back to find a value whole
 * (see `visibleTail`). Emoji sequences and bidirectional marks use runs of one to three.
 */
export const BREAK_RUN = 4;

const MARK = /\p{M}/u;

/** Code point → whether it is a combining mark. A small memo, as for `fold`. */
const marks = new Map<number, boolean>();

function isMark(cp: number): boolean {
  if (cp < 0x300) return false;
  let hit = marks.get(cp);
  if (hit === undefined) {
    hit = MARK.test(String.fromCodePoint(cp));
    if (marks.size >= 4096) marks.clear();
    marks.set(cp, hit);
  }
  return hit;
}

const isAlnum = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/** The code point that ends at `end` in `text`. */
function codePointBefore(text: string, end: number): number {
  const c = text.charCodeAt(end - 1);
  if (c >= 0xdc00 && c <= 0xdfff && end >= 2) {
    const hi = text.charCodeAt(end - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return (hi - 0xd800) * 0x400 + (c - 0xdc00) + 0x10000;
  }
  return c;
}

/** Whether the character that ends at `end` reads (folded) as ending in an ASCII letter or digit. */
function endsAlnum(text: string, end: number): boolean {
  const cp = codePointBefore(text, end);
  if (cp < 0x80) return isAlnum(cp);
  const f = fold(cp);
  return f !== null && f.length > 0 && isAlnum(f.charCodeAt(f.length - 1));
}

/**
 * The folded view of `text`, or null when the text is its own view (nothing to fold). Dropped:
 * invisible characters, and combining marks on an ASCII letter or digit (`4\u0301` reads `4`);
 * a run of `BREAK_RUN` units or more of them reads as one NUL.
 */
export function foldedView(text: string): FoldedView | null {
  if (!NON_ASCII.test(text)) return null;
  const n = text.length;
  let first = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    const cp = c >= 0xd800 && c <= 0xdbff ? text.codePointAt(i)! : c;
    if (fold(cp) !== null || (i > 0 && isMark(cp) && isAlnum(text.charCodeAt(i - 1)))) {
      first = i;
      break;
    }
    if (cp > 0xffff) i++;
  }
  if (first < 0) return null;
  // Where the view's offsets stop running alongside the original's: a character dropped, or one
  // that folds to a different length (`ﬁ` → `fi`, an astral digit → one unit). A character
  // folded to one of the same length (full-width `４` → `4`) keeps them alongside: no entry.
  const vStart: number[] = [];
  const vEnd: number[] = [];
  const oStart: number[] = [];
  const oEnd: number[] = [];
  const parts: string[] = [];
  let len = 0; // the view's length so far
  let kept = 0; // the start of the stretch of original text kept as it is
  // The last piece folded (or dropped): where it starts, its length in the view, whether it has an entry.
  let lastStart = 0;
  let lastLength = 0;
  let lastEntry = false;
  for (let i = first; i < n;) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      i++;
      continue;
    }
    const cp = c >= 0xd800 && c <= 0xdbff ? text.codePointAt(i)! : c;
    const width = cp > 0xffff ? 2 : 1;
    let piece = fold(cp);
    let end = i + width;
    const mark = piece === null && isMark(cp);
    if (piece === '' || mark) {
      // The view's last character: on a letter or digit, marks are dropped with invisible characters.
      const last = kept < i ? text.charCodeAt(i - 1) : parts.length > 0 ? parts[parts.length - 1]!.charCodeAt(parts[parts.length - 1]!.length - 1) : -1;
      const onAlnum = isAlnum(last);
      if (piece === '' || onAlnum) {
        while (end < n) {
          const c2 = text.charCodeAt(end);
          if (c2 < 0xad) break;
          const cp2 = c2 >= 0xd800 && c2 <= 0xdbff ? text.codePointAt(end)! : c2;
          if (!isInvisible(cp2) && !(onAlnum && isMark(cp2))) break;
          end += cp2 > 0xffff ? 2 : 1;
        }
        piece = end - i >= BREAK_RUN ? '\u0000' : '';
        if (piece === '' && mark) {
          // Marks belong to the character they sit on: a value found ends after them, so
          // none is left behind on what replaces it.
          let marksEnd = i;
          while (marksEnd < end) {
            const cp2 = text.codePointAt(marksEnd)!;
            if (!isMark(cp2)) break;
            marksEnd += cp2 > 0xffff ? 2 : 1;
          }
          if (kept < i) {
            // The letter or digit is ASCII, kept as it is: it gets an entry of its own.
            parts.push(text.slice(kept, i - 1));
            len += i - 1 - kept;
            lastStart = i - 1;
            lastEntry = false;
            lastLength = 1;
            parts.push(text[i - 1]!);
            len += 1;
          }
          if (lastEntry) oEnd[oEnd.length - 1] = marksEnd;
          else {
            vStart.push(len - lastLength);
            vEnd.push(len);
            oStart.push(lastStart);
            oEnd.push(marksEnd);
          }
          lastEntry = true;
          kept = i = marksEnd;
          if (marksEnd === end) continue;
        }
      }
    }
    if (piece === null) {
      i += width;
      continue;
    }
    if (kept < i) parts.push(text.slice(kept, i));
    len += i - kept;
    lastEntry = piece.length !== end - i;
    if (lastEntry) {
      vStart.push(len);
      vEnd.push(len + piece.length);
      oStart.push(i);
      oEnd.push(end);
    }
    if (piece.length > 0) parts.push(piece);
    lastStart = i;
    lastLength = piece.length;
    len += piece.length;
    i = end;
    kept = i;
  }
  if (kept < n) parts.push(text.slice(kept));
  /** The original span of the view's character at `v`. */
  const at = (v: number): [number, number] => {
    // The last entry starting at or before v (binary search).
    let lo = 0;
    let hi = vStart.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (vStart[mid]! <= v) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (k < 0) return [v, v + 1];
    if (v < vEnd[k]!) return [oStart[k]!, oEnd[k]!];
    const o = oEnd[k]! + (v - vEnd[k]!);
    return [o, o + 1];
  };
  return {
    text: parts.join(''),
    original: (start, end) => ({ start: at(start)[0], end: at(end - 1)[1] }),
  };
}

/** `text` as detectors read it (what a surrogate is made from). */
export function foldForScan(text: string): string {
  return foldedView(text)?.text ?? text;
}

/**
 * Where the end of `text` that a stream holds back begins: its last `count` characters as the
 * view reads them (dropped characters are not counted, so a value padded with zero-width spaces
 * or combining marks still fits the window), but never reaching back past a run of dropped
 * characters that reads as a break (nothing after it can join what is before it). So at most
 * `(BREAK_RUN + 1) × count + BREAK_RUN` units are held, whatever the padding, and the walk is as
 * long.
 */
export function visibleTail(text: string, count: number): number {
  let i = text.length;
  let seen = 0;
  while (i > 0 && seen < count) {
    // The run of invisible characters and combining marks that ends at i.
    let j = i;
    let hasMark = false;
    while (j > 0) {
      const cp = codePointBefore(text, j);
      if (cp < 0xad) break;
      if (isInvisible(cp)) j -= cp > 0xffff ? 2 : 1;
      else if (isMark(cp)) {
        hasMark = true;
        j -= cp > 0xffff ? 2 : 1;
      } else break;
    }
    if (j < i) {
      if (!hasMark || (j > 0 && endsAlnum(text, j))) {
        // All of it is dropped.
        if (i - j >= BREAK_RUN) return i;
      } else {
        // Not on a letter or digit: the marks are read, and only the invisible runs between them are dropped.
        let run = 0;
        let runEnd = i;
        for (let k = i; k > j;) {
          const cp = codePointBefore(text, k);
          const w = cp > 0xffff ? 2 : 1;
          if (isInvisible(cp)) {
            if (run === 0) runEnd = k;
            run += w;
            if (run >= BREAK_RUN) return runEnd;
          } else {
            run = 0;
            if (++seen >= count) return k - w;
          }
          k -= w;
        }
      }
      i = j;
      if (i === 0) break;
    }
    const cp = codePointBefore(text, i);
    i -= cp > 0xffff ? 2 : 1;
    seen++;
  }
  return i;
}
