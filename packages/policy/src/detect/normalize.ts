/**
 * The text detectors read. A value can be disguised so that it reads the same to a person (and
 * to a model) but not to a scanner of ASCII: full-width digits `４１１１`, a full-width `＠`, an
 * en dash in `536–22–1234`, a zero-width space between a card's digits. The detectors scan a
 * folded view instead: each character in compatibility form (NFKC: full-width forms, no-break
 * spaces, circled digits), dashes read as `-`, invisible characters (zero-width spaces and
 * joiners, soft hyphens, bidirectional controls, variation selectors, tag characters) dropped.
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

/** The folded view of `text`, or null when the text is its own view (nothing to fold). */
export function foldedView(text: string): FoldedView | null {
  if (!NON_ASCII.test(text)) return null;
  const n = text.length;
  let first = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    const cp = c >= 0xd800 && c <= 0xdbff ? text.codePointAt(i)! : c;
    if (fold(cp) !== null) {
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
  for (let i = first; i < n;) {
    const c = text.charCodeAt(i);
    const cp = c >= 0xd800 && c <= 0xdbff ? text.codePointAt(i)! : c;
    const width = cp > 0xffff ? 2 : 1;
    const piece = c < 0x80 ? null : fold(cp);
    if (piece === null) {
      i += width;
      continue;
    }
    if (kept < i) parts.push(text.slice(kept, i));
    len += i - kept;
    if (piece.length !== width) {
      vStart.push(len);
      vEnd.push(len + piece.length);
      oStart.push(i);
      oEnd.push(i + width);
    }
    parts.push(piece);
    len += piece.length;
    i += width;
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
 * Where the end of `text` holding its last `count` visible characters begins: invisible
 * characters are not counted, so a value padded with zero-width spaces still fits the window a
 * stream holds back.
 */
export function visibleTail(text: string, count: number): number {
  let i = text.length;
  let kept = 0;
  while (i > 0 && kept < count) {
    i--;
    const c = text.charCodeAt(i);
    if (c < 0xad) {
      kept++;
      continue;
    }
    let cp = c;
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const pair = text.codePointAt(i - 1)!;
      if (pair > 0xffff) {
        cp = pair;
        i--;
      }
    }
    if (!isInvisible(cp)) kept++;
  }
  return i;
}
