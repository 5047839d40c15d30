/**
 * Credentials in well-known shapes: OpenAI / Anthropic `sk-…` keys, Stripe `sk_live_…`, AWS
 * access key ids (`AKIA…`), GitHub tokens (`ghp_…`, `github_pat_…`), GitLab `glpat-…`, Slack
 * `xox?-…`, Google API keys (`AIza…`), JSON Web Tokens and PEM private-key blocks. Each shape is
 * found by its literal prefix (`indexOf`), then read over a bounded run of its alphabet.
 */
import { at, isAlnum, isDigit, isLower, isUpper, isWord } from './chars.js';
import type { Detector, Finding } from './types.js';

const MAX_TOKEN = 512;
const MAX_PEM = 4096;

const isB64Url = (c: number): boolean => isAlnum(c) || c === 45 || c === 95;
const isAlnumUpper = (c: number): boolean => isUpper(c) || isDigit(c);

interface Shape {
  prefix: string;
  /** The alphabet after the prefix. */
  body: (c: number) => boolean;
  min: number;
  max: number;
  /** Extra test on the body (say, mixes letters and digits, as random keys do). */
  check?: (body: string) => boolean;
}

const mixed = (s: string): boolean => {
  let letter = false;
  let digit = false;
  for (let i = 0; i < s.length && !(letter && digit); i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) digit = true;
    else if (isUpper(c) || isLower(c)) letter = true;
  }
  return letter && digit;
};

const SHAPES: readonly Shape[] = [
  { prefix: 'sk-', body: isB64Url, min: 20, max: MAX_TOKEN, check: mixed },
  ...['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'].map((prefix) => ({ prefix, body: isAlnum, min: 16, max: 255 })),
  ...['AKIA', 'ASIA', 'ABIA', 'ACCA'].map((prefix) => ({ prefix, body: isAlnumUpper, min: 16, max: 16 })),
  ...['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'].map((prefix) => ({ prefix, body: isAlnum, min: 36, max: 255 })),
  { prefix: 'github_pat_', body: (c: number) => isAlnum(c) || c === 95, min: 22, max: 255 },
  { prefix: 'glpat-', body: isB64Url, min: 20, max: 255 },
  ...['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe-'].map((prefix) => ({
    prefix,
    body: (c: number) => isAlnum(c) || c === 45,
    min: 10,
    max: 255,
    check: mixed,
  })),
  { prefix: 'AIza', body: isB64Url, min: 35, max: 35 },
];

/** Where a shape's run starting at `start` ends (a finding is pushed), and where to look next. */
function shapeAt(text: string, shape: Shape, start: number, out: Finding[]): number {
  const before = at(text, start - 1);
  if (isWord(before) || before === 45) return start + 1;
  const bodyStart = start + shape.prefix.length;
  // The whole run of the alphabet, read once: later starts inside it are decided by it too.
  let end = bodyStart;
  while (end < text.length && shape.body(text.charCodeAt(end))) end++;
  const length = end - bodyStart;
  if (length > shape.max) return Math.max(start + 1, end - shape.max - shape.prefix.length);
  // Too short or too plain: a later start inside this run sees a shorter body with fewer kinds of characters.
  if (length < shape.min || (shape.check !== undefined && !shape.check(text.slice(bodyStart, end)))) return end;
  out.push({ entity: 'secret', start, end });
  return end;
}

/** header.payload.signature, each base64url; header and payload are JSON objects (`eyJ`). */
function jwtAt(text: string, start: number, out: Finding[]): number {
  if (isB64Url(at(text, start - 1))) return start + 1;
  const limit = Math.min(text.length, start + MAX_TOKEN * 8);
  let i = start;
  let dots = 0;
  let payload = -1;
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (isB64Url(c)) i++;
    else if (c === 46 && dots < 2) {
      dots++;
      i++;
      if (dots === 1) payload = i;
    } else break;
  }
  if (dots < 2 || payload - start < 12 || !text.startsWith('eyJ', payload) || i - payload < 12) {
    // Starts before the first dot see the same dots with a shorter header: skip them.
    return dots === 0 ? i : payload;
  }
  out.push({ entity: 'secret', start, end: i });
  return i;
}

const PEM_BEGIN = '-----BEGIN ';
const PEM_TAIL = 'PRIVATE KEY-----';

/** A PEM private-key block, header to footer; without a footer in reach, the header and the base64 after it. */
function pemAt(text: string, start: number, out: Finding[], footer: { at: number }): number {
  const labelFrom = start + PEM_BEGIN.length;
  const label = text.slice(labelFrom, labelFrom + 40 + PEM_TAIL.length).indexOf(PEM_TAIL);
  if (label < 0) return start + 1;
  const labelEnd = labelFrom + label;
  for (let i = labelFrom; i < labelEnd; i++) {
    const c = text.charCodeAt(i);
    if (!(isUpper(c) || c === 32)) return start + 1;
  }
  const bodyStart = labelEnd + PEM_TAIL.length;
  const limit = Math.min(text.length, start + MAX_PEM);
  // The next footer is looked up once and reused while it lies ahead: linear with many headers.
  if (footer.at < bodyStart && footer.at !== -1) footer.at = text.indexOf('-----END ', bodyStart);
  let end: number;
  if (footer.at >= 0 && footer.at < limit) {
    const close = text.slice(footer.at, footer.at + 60).indexOf(PEM_TAIL);
    end = close >= 0 ? footer.at + close + PEM_TAIL.length : footer.at;
  } else {
    end = bodyStart;
    while (end < limit) {
      const c = text.charCodeAt(end);
      if (isAlnum(c) || c === 43 || c === 47 || c === 61 || c === 10 || c === 13 || c === 32 || c === 58 || c === 45 || c === 44) end++;
      else break;
    }
  }
  out.push({ entity: 'secret', start, end });
  return end;
}

/** Every prefix a credential starts with, found in one pass by the regex engine; each occurrence is then read by hand. */
// Prefixes are letters, digits, '-', '_' and spaces: nothing a regex reads specially.
const PREFIXES = new RegExp([...SHAPES.map((s) => s.prefix), 'eyJ', PEM_BEGIN].join('|'), 'g');
const JWT = SHAPES.length;
const PEM = SHAPES.length + 1;
const KIND = new Map<string, number>([...SHAPES.map((s, i) => [s.prefix, i] as const), ['eyJ', JWT], [PEM_BEGIN, PEM]]);

export const secret: Detector = {
  entity: 'secret',
  maxLength: MAX_PEM,
  scan(text: string, out: Finding[]): void {
    const found: Finding[] = [];
    // Per kind of credential: where its next start may be (a start inside a run already read is decided).
    const from = new Int32Array(SHAPES.length + 2);
    const footer = { at: -2 };
    PREFIXES.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = PREFIXES.exec(text)) !== null) {
      const start = m.index;
      PREFIXES.lastIndex = start + 1;
      const kind = KIND.get(m[0])!;
      if (start < from[kind]!) continue;
      from[kind] = kind === JWT ? jwtAt(text, start, found) : kind === PEM ? pemAt(text, start, found, footer) : shapeAt(text, SHAPES[kind]!, start, found);
    }
    if (found.length === 0) return;
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    let last = -1;
    for (const f of found) {
      if (f.start < last) continue;
      out.push(f);
      last = f.end;
    }
  },
};
