/**
 * The output side of DLP, over text that arrives in pieces (a streamed answer) or whole:
 * surrogates the request was given are put back to the originals, and with response scanning
 * on, values the detectors find are counted, redacted or refuse the answer. It holds back only
 * what could still change — the longest surrogate prefix at the end of what it has, and the
 * detectors' window when they run — never the whole answer. Surrogates are the gateway's own:
 * they are masked before the detectors run, so a surrogate being restored is never reported,
 * while a value glued to one still is.
 */
import { visibleTail } from './normalize.js';
import { actionStrictness, scanText } from './scan.js';
import type { Detector, Finding } from './types.js';

/** What the output guard does with a value a detector finds in the answer. */
export type OutputAction = 'log' | 'redact' | 'block';

export interface OutputRules {
  /** Surrogate → original, for this request. */
  restore: ReadonlyMap<string, string>;
  /** Detectors run over the answer (response scanning), with the action for each entity. */
  detectors: readonly Detector[];
  action(entity: string): OutputAction;
  /** What replaces a redacted value. */
  marker(entity: string): string;
}

interface Span {
  start: number;
  end: number;
  /** The original to restore, or null for a finding. */
  original: string | null;
  entity: string;
}

/** Every occurrence of every surrogate, longest first at a position, none overlapping. */
function surrogateSpans(text: string, restore: ReadonlyMap<string, string>): Span[] {
  const spans: Span[] = [];
  for (const [surrogate, original] of restore) {
    if (surrogate.length === 0) continue;
    let from = 0;
    for (;;) {
      const i = text.indexOf(surrogate, from);
      if (i < 0) break;
      spans.push({ start: i, end: i + surrogate.length, original, entity: '' });
      from = i + 1;
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  let last = -1;
  for (const s of spans) {
    if (s.start < last) continue;
    out.push(s);
    last = s.end;
  }
  return out;
}

/** `text` with each span blanked out (NUL characters, which no built-in detector reads or joins across), same length. */
function mask(text: string, spans: readonly Span[]): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + '\u0000'.repeat(s.end - s.start);
    at = s.end;
  }
  return out + text.slice(at);
}

/** The longest end of `text` that is a proper beginning of some surrogate: it may still become one. */
function partialSurrogate(text: string, restore: ReadonlyMap<string, string>): number {
  let hold = 0;
  for (const surrogate of restore.keys()) {
    const first = surrogate.charCodeAt(0);
    for (let l = Math.min(surrogate.length - 1, text.length); l > hold; l--) {
      if (text.charCodeAt(text.length - l) === first && text.endsWith(surrogate.slice(0, l))) {
        hold = l;
        break;
      }
    }
  }
  return hold;
}

/** A string as it appears inside a JSON string literal. */
const escapeJson = (s: string): string => JSON.stringify(s).slice(1, -1);

export class OutputGuard {
  /** Found in the answer (response scanning), by entity: only what was handed on or refused. */
  readonly counts = new Map<string, number>();
  /** The entity whose `block` action refused the answer, once one did. */
  blocked: string | null = null;
  private buffer = '';
  /**
   * Where, in what is held, a new text begins that a client may receive joined to the one
   * before (adjacent text blocks): ascending, each above 0. The texts are judged as one.
   */
  private bounds: number[] = [];
  private readonly window: number;
  /** Surrogate → original, as they appear in the text this guard reads. */
  private readonly restore: ReadonlyMap<string, string>;
  private readonly strictness = (entity: string): number => actionStrictness(this.rules.action(entity));

  constructor(
    private readonly rules: OutputRules,
    /**
     * Restore into JSON string content (tool-call arguments): a surrogate is looked for as it
     * appears there (JSON-escaped: a key block's line breaks are `\n`), and its original is
     * put back JSON-escaped.
     */
    private readonly json = false,
  ) {
    let w = 0;
    for (const d of rules.detectors) w = Math.max(w, d.maxLength);
    this.window = w;
    this.restore = json ? new Map([...rules.restore].map(([s, o]) => [escapeJson(s), escapeJson(o)])) : rules.restore;
  }

  /** The longest text this guard may hold back. */
  static windowOf(rules: OutputRules): number {
    let w = 0;
    for (const s of rules.restore.keys()) w = Math.max(w, s.length);
    for (const d of rules.detectors) w = Math.max(w, d.maxLength);
    return w;
  }

  /** How much text is held back right now. */
  get held(): number {
    return this.buffer.length;
  }

  /** Take more text; returns what can be handed on now. After a block, returns ''. */
  push(text: string): string {
    return this.pushParts(text).join('');
  }

  /** The text is over (the block ended, or the stream was cut): hand on everything held. */
  end(): string {
    return this.endParts().join('');
  }

  /** A whole text at once. */
  whole(text: string): string {
    return this.wholeParts([text]).join('');
  }

  /**
   * The current text is over but the next one may continue it — adjacent text blocks, which a
   * client in another format may receive joined: what is held of it stays held and is judged
   * with what comes next, so a value split over the boundary is found. Returns false when
   * nothing is held (the text has all gone out: there is no boundary to carry).
   */
  carry(): boolean {
    if (this.blocked !== null || this.buffer.length === 0) return false;
    this.bounds.push(this.buffer.length);
    return true;
  }

  /**
   * `push` over texts joined by `carry`: what can be handed on now, one piece per text whose
   * end went out, and last the piece of the text still held (so one more piece than the
   * boundaries passed). A value over a boundary goes, restored or redacted, in the text it starts in.
   */
  pushParts(text: string): string[] {
    if (this.blocked !== null) return [''];
    this.buffer += text;
    return this.process(false);
  }

  /** `end` over texts joined by `carry`: everything held, one piece per text not yet over. */
  endParts(): string[] {
    if (this.blocked !== null) return [''];
    return this.process(true);
  }

  /** Whole texts a client may receive joined, judged as one: one piece per text (all '' after a block). */
  wholeParts(texts: readonly string[]): string[] {
    this.buffer = texts.join('');
    this.bounds = [];
    let at = 0;
    for (let i = 0; i < texts.length - 1; i++) this.bounds.push((at += texts[i]!.length));
    const out = this.process(true);
    return out.length === texts.length ? out : texts.map(() => '');
  }

  private process(final: boolean): string[] {
    const buf = this.buffer;
    if (buf.length === 0) {
      // Only boundaries at 0 (empty texts) can be left: each of those texts is over, with nothing.
      const pieces = this.bounds.map(() => '');
      this.bounds = [];
      return [...pieces, ''];
    }
    // Nothing can go out while all of it is within the detectors' window: scan once there is more.
    if (!final && buf.length <= this.window) return [''];
    const restore = this.restore;
    const spans: Span[] = restore.size === 0 ? [] : surrogateSpans(buf, restore);
    if (this.rules.detectors.length > 0) {
      // Surrogates are the gateway's own: they are masked before the scan, so no detector reads
      // one — and a value the model glues to one (`4111….<surrogate>`) is still found.
      const masked = spans.length === 0 ? buf : mask(buf, spans);
      // Where findings overlap, the stricter action wins: a blocked value is never hidden by a logged one.
      const findings: Finding[] = scanText(masked, this.rules.detectors, this.strictness);
      if (findings.length > 0) {
        // Only the part of a finding outside every surrogate is the model's (a custom pattern may match across the mask).
        let k = 0;
        const merged: Span[] = [];
        for (const f of findings) {
          while (k < spans.length && spans[k]!.end <= f.start) merged.push(spans[k++]!);
          let start = f.start;
          while (k < spans.length && spans[k]!.start < f.end) {
            const sur = spans[k]!;
            if (sur.start > start) merged.push({ start, end: sur.start, original: null, entity: f.entity });
            start = Math.max(start, sur.end);
            if (sur.end > f.end) break;
            merged.push(sur);
            k++;
          }
          if (start < f.end) merged.push({ start, end: f.end, original: null, entity: f.entity });
        }
        while (k < spans.length) merged.push(spans[k++]!);
        spans.length = 0;
        spans.push(...merged);
      }
    }
    let cut = buf.length;
    if (!final) {
      let partial = restore.size === 0 ? 0 : partialSurrogate(buf, restore);
      // A partial surrogate that begins inside a complete one is not one (occurrences do not overlap).
      const inside = spans.find((s) => s.original !== null && s.start < buf.length - partial && s.end > buf.length - partial);
      if (inside !== undefined) partial = partialSurrogate(buf.slice(inside.end), restore);
      cut = Math.min(buf.length - partial, visibleTail(buf, this.window));
      for (const s of spans) if (s.start < cut && s.end > cut) cut = s.start;
    }
    // What goes out, split where each passed boundary falls; a span goes whole into the text it starts in.
    const passed = this.bounds.filter((b) => b <= cut);
    const pieces: string[] = [];
    let out = '';
    let at = 0;
    let next = 0;
    const copyTo = (pos: number): void => {
      while (next < passed.length && passed[next]! <= pos) {
        const b = passed[next++]!;
        if (b > at) {
          out += buf.slice(at, b);
          at = b;
        }
        pieces.push(out);
        out = '';
      }
      out += buf.slice(at, pos);
      at = pos;
    };
    for (const s of spans) {
      if (s.end > cut) break;
      if (s.original !== null) {
        copyTo(s.start);
        out += s.original;
        at = s.end;
        continue;
      }
      this.counts.set(s.entity, (this.counts.get(s.entity) ?? 0) + 1);
      const action = this.rules.action(s.entity);
      if (action === 'block') {
        this.blocked = s.entity;
        this.buffer = '';
        this.bounds = [];
        return [''];
      }
      if (action === 'redact') {
        copyTo(s.start);
        out += this.rules.marker(s.entity);
        at = s.end;
      }
    }
    copyTo(cut);
    pieces.push(out);
    this.buffer = buf.slice(cut);
    this.bounds = this.bounds.filter((b) => b > cut).map((b) => b - cut);
    return pieces;
  }
}
