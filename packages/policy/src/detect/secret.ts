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
  ...['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe-'].map((prefix) => ({ prefix, body: (c: number) => isAlnum(c) || c === 45, min: 10, max: 255, check: mixed })),
  { prefix: 'AIza', body: isB64Url, min: 35, max: 35 },
];

function scanShape(text: string, shape: Shape, out: Finding[]): void {
  const { prefix } = shape;
  let from = 0;
  for (;;) {
    const start = text.indexOf(prefix, from);
    if (start < 0) return;
    from = start + 1;
    const before = at(text, start - 1);
    if (isWord(before) || before === 45) continue;
    const bodyStart = start + prefix.length;
    // The whole run of the alphabet, read once: later starts inside it are decided by it too.
    let end = bodyStart;
    while (end < text.length && shape.body(text.charCodeAt(end))) end++;
    const length = end - bodyStart;
    if (length > shape.max) {
      from = Math.max(start + 1, end - shape.max - prefix.length);
      continue;
    }
    if (length < shape.min || (shape.check !== undefined && !shape.check(text.slice(bodyStart, end)))) {
      // A later start inside this run sees a shorter body with fewer kinds of characters.
      from = end;
      continue;
    }
    out.push({ entity: 'secret', start, end });
    from = end;
  }
}

/** header.payload.signature, each base64url; header and payload are JSON objects (`eyJ`). */
function scanJwt(text: string, out: Finding[]): void {
  let from = 0;
  for (;;) {
    const start = text.indexOf('eyJ', from);
    if (start < 0) return;
    from = start + 1;
    if (isB64Url(at(text, start - 1))) continue;
    const limit = Math.min(text.length, start + MAX_TOKEN * 8);
    let i = start;
    let dots = 0;
    const segStart = [start];
    while (i < limit) {
      const c = text.charCodeAt(i);
      if (isB64Url(c)) i++;
      else if (c === 46 && dots < 2) {
        dots++;
        i++;
        segStart.push(i);
      } else break;
    }
    if (dots < 2 || segStart[1]! - start < 12 || text.slice(segStart[1]!, segStart[1]! + 3) !== 'eyJ' || i - segStart[1]! < 12) {
      // Starts before the first dot see the same dots with a shorter header: skip them.
      from = dots === 0 ? i : segStart[1]!;
      continue;
    }
    out.push({ entity: 'secret', start, end: i });
    from = i;
  }
}

const PEM_BEGIN = '-----BEGIN ';
const PEM_TAIL = 'PRIVATE KEY-----';

/** A PEM private-key block, header to footer; without a footer in reach, the header and the base64 after it. */
function scanPem(text: string, out: Finding[]): void {
  let from = 0;
  let footer = -2;
  for (;;) {
    const start = text.indexOf(PEM_BEGIN, from);
    if (start < 0) return;
    from = start + 1;
    const labelFrom = start + PEM_BEGIN.length;
    const label = text.slice(labelFrom, labelFrom + 40 + PEM_TAIL.length).indexOf(PEM_TAIL);
    if (label < 0) continue;
    const labelEnd = labelFrom + label;
    let ok = true;
    for (let i = labelFrom; i < labelEnd; i++) {
      const c = text.charCodeAt(i);
      if (!(isUpper(c) || c === 32)) ok = false;
    }
    if (!ok) continue;
    const bodyStart = labelEnd + PEM_TAIL.length;
    const limit = Math.min(text.length, start + MAX_PEM);
    // The next footer is looked up once and reused while it lies ahead: linear with many headers.
    if (footer < bodyStart && footer !== -1) footer = text.indexOf('-----END ', bodyStart);
    let end: number;
    if (footer >= 0 && footer < limit) {
      const close = text.slice(footer, footer + 60).indexOf(PEM_TAIL);
      end = close >= 0 ? footer + close + PEM_TAIL.length : footer;
    } else {
      end = bodyStart;
      while (end < limit) {
        const c = text.charCodeAt(end);
        if (isAlnum(c) || c === 43 || c === 47 || c === 61 || c === 10 || c === 13 || c === 32 || c === 58 || c === 45 || c === 44) end++;
        else break;
      }
    }
    out.push({ entity: 'secret', start, end });
    from = end;
  }
}

export const secret: Detector = {
  entity: 'secret',
  maxLength: MAX_PEM,
  scan(text: string, out: Finding[]): void {
    const found: Finding[] = [];
    for (const shape of SHAPES) scanShape(text, shape, found);
    scanJwt(text, found);
    scanPem(text, found);
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    let last = -1;
    for (const f of found) {
      if (f.start < last) continue;
      out.push(f);
      last = f.end;
    }
  },
};
