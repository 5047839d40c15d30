/**
 * An organisation's own identifiers (`dlp.custom: [{ id, pattern, flags? }]`), matched with
 * RE2 semantics (re2js): linear time whatever the pattern, so a policy author cannot write a
 * pattern that stalls the gateway on a hostile prompt. RE2 has no backreferences or
 * lookaround; a pattern that uses them does not compile, and validation says so.
 */
import { RE2JS } from 're2js';
import type { Detector, Finding } from './types.js';

export interface CustomPattern {
  id: string;
  pattern: string;
  /** Any of `i` (ignore case), `m` (^ and $ at line breaks), `s` (. matches a line break). */
  flags?: string;
  /** The longest match a stream must hold back to find it across chunks. Default 128. */
  max_length?: number;
}

const FLAG_BITS: Readonly<Record<string, number>> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

/** Texts a pattern must not match as an empty string anywhere in. */
const PROBES = ['', 'a', ' ', '0', 'Ab 1-x\n.'];

export const DEFAULT_CUSTOM_MAX_LENGTH = 128;

/** Compile a custom pattern, or say why it cannot be used. */
export function compileCustom(spec: CustomPattern): { ok: true; detector: Detector } | { ok: false; path: 'pattern' | 'flags'; message: string } {
  let bits = 0;
  for (const f of spec.flags ?? '') {
    const bit = FLAG_BITS[f];
    if (bit === undefined) return { ok: false, path: 'flags', message: `unknown flag "${f}": use i, m or s` };
    bits |= bit;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(spec.pattern, bits);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, path: 'pattern', message: `does not compile as an RE2 pattern (no backreferences or lookaround): ${why}` };
  }
  for (const probe of PROBES) {
    const m = re.matcher(probe);
    while (m.find()) {
      if (m.end() === m.start()) return { ok: false, path: 'pattern', message: 'matches the empty string: it would find an entity everywhere' };
    }
  }
  const entity = spec.id;
  const detector: Detector = {
    entity,
    maxLength: spec.max_length ?? DEFAULT_CUSTOM_MAX_LENGTH,
    scan(text: string, out: Finding[]): void {
      if (text.length === 0 || !re.test(text)) return;
      const m = re.matcher(text);
      let from = 0;
      while (from <= text.length && m.find(from)) {
        const start = m.start();
        const end = m.end();
        if (end > start) out.push({ entity, start, end });
        from = end > start ? end : start + 1;
      }
    },
  };
  return { ok: true, detector };
}
