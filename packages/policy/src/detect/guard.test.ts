import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, OutputGuard, redactionMarker, type OutputAction, type OutputRules } from './index.js';
import { BREAK_RUN } from './normalize.js';

const SURROGATE = 'qwxzplmn@hxkvbe.example';
const ORIGINAL = 'jane.doe@acme.io';

function rules(actions: Record<string, OutputAction>): OutputRules {
  return {
    restore: new Map([[SURROGATE, ORIGINAL]]),
    detectors: [BUILTIN_DETECTORS.email, BUILTIN_DETECTORS.credit_card, BUILTIN_DETECTORS.phone],
    action: (entity) => actions[entity] ?? 'log',
    marker: redactionMarker,
  };
}

/** The guard fed one character at a time, as a stream arrives; null when it refused the answer. */
function streamed(guard: OutputGuard, text: string): string | null {
  let out = '';
  for (const ch of text) out += guard.push(ch);
  out += guard.end();
  return guard.blocked === null ? out : null;
}

describe('output guard: a value glued to a surrogate', () => {
  // The email detector reads `4111….<surrogate>` as one address (the digits as its local part);
  // that reading touches the surrogate, and only the surrogate's own characters may be ignored.
  const text = `Card: 4111111111111111.${SURROGATE} and 5555555555554444-${SURROGATE}`;

  it('a redacted card is redacted and the surrogate still restored, whole and streamed', () => {
    const expected = `Card: [REDACTED:CREDIT_CARD].${ORIGINAL} and [REDACTED:CREDIT_CARD]-${ORIGINAL}`;
    const whole = new OutputGuard(rules({ credit_card: 'redact', email: 'redact' }));
    expect(whole.whole(text)).toBe(expected);
    expect(whole.counts).toEqual(new Map([['credit_card', 2]]));
    expect(streamed(new OutputGuard(rules({ credit_card: 'redact', email: 'redact' })), text)).toBe(expected);
  });

  it('a blocked card refuses the answer, whole and streamed, also when the email reading is as strict', () => {
    const whole = new OutputGuard(rules({ credit_card: 'block', email: 'block' }));
    expect(whole.whole(text)).toBe('');
    expect(whole.blocked).toBe('credit_card');
    const stream = new OutputGuard(rules({ credit_card: 'block', email: 'block' }));
    expect(streamed(stream, text)).toBeNull();
    expect(stream.blocked).toBe('credit_card');
  });

  it('a surrogate alone is restored, never reported as a finding', () => {
    const guard = new OutputGuard(rules({ email: 'block' }));
    expect(guard.whole(`Write to ${SURROGATE}.`)).toBe(`Write to ${ORIGINAL}.`);
    expect(guard.blocked).toBeNull();
    expect(guard.counts.size).toBe(0);
  });
});

describe('output guard: texts a client may receive joined', () => {
  const PAD = 'x'.repeat(400);
  const A = `${PAD} card 4111 1111`;
  const B = ` 1111 1111, mail ${SURROGATE.slice(0, 4)}`;
  const C = `${SURROGATE.slice(4)} ${PAD}`;

  /** Each text fed a character at a time, `carry` between them: what went out for each text, and the most held at once. */
  function joined(guard: OutputGuard, texts: readonly string[]): { parts: string[]; held: number; before: string } | null {
    const parts = texts.map(() => '');
    let oldest = 0; // the first text not yet all out: pieces start there
    const take = (pieces: string[]) => {
      pieces.forEach((p, k) => (parts[oldest + k] += p));
      oldest += pieces.length - 1;
    };
    let held = 0;
    let before = '';
    texts.forEach((text, i) => {
      if (i === 1) before = parts[0]!;
      if (i > 0) guard.carry();
      for (const ch of text) {
        take(guard.pushParts(ch));
        held = Math.max(held, guard.held);
      }
    });
    take(guard.endParts());
    return guard.blocked === null ? { parts, held, before } : null;
  }

  it('a value over a boundary is redacted into the text it starts in, a surrogate over one restored; no more is held than for one text', () => {
    const out = joined(new OutputGuard(rules({ credit_card: 'redact' })), [A, B, C]);
    expect(out!.parts).toEqual([`${PAD} card [REDACTED:CREDIT_CARD]`, `, mail ${ORIGINAL}`, ` ${PAD}`]);
    expect(out!.before).not.toContain('4111');
    // The boundaries hold back nothing more than the same text in one piece.
    expect(out!.held).toBe(joined(new OutputGuard(rules({ credit_card: 'redact' })), [A + B + C])!.held);
    const whole = new OutputGuard(rules({ credit_card: 'redact' }));
    expect(whole.wholeParts([A, B, C])).toEqual(out!.parts);
  });

  it('a blocked value over a boundary refuses the answer, streamed and whole', () => {
    const stream = new OutputGuard(rules({ credit_card: 'block' }));
    expect(joined(stream, [A, B, C])).toBeNull();
    expect(stream.blocked).toBe('credit_card');
    const whole = new OutputGuard(rules({ credit_card: 'block' }));
    expect(whole.wholeParts([A, B, C])).toEqual(['', '', '']);
    expect(whole.blocked).toBe('credit_card');
  });
});

describe('output guard: invisible padding holds back a bounded amount', () => {
  const scanning: OutputRules = {
    restore: new Map(),
    detectors: [BUILTIN_DETECTORS.email, BUILTIN_DETECTORS.credit_card, BUILTIN_DETECTORS.phone, BUILTIN_DETECTORS.secret],
    action: () => 'redact',
    marker: redactionMarker,
  };
  const window = OutputGuard.windowOf(scanning);
  /**
   * The most held at once, and the text judged in all: a push scans what is held and the push
   * once they pass the window (below it nothing can go out, and nothing is scanned).
   */
  function feed(chunks: Iterable<string>): { held: number; judged: number; input: number; out: string } {
    const guard = new OutputGuard(scanning);
    let held = 0;
    let judged = 0;
    let input = 0;
    let out = '';
    for (const chunk of chunks) {
      if (guard.held + chunk.length > window) judged += guard.held + chunk.length;
      input += chunk.length;
      out += guard.push(chunk);
      held = Math.max(held, guard.held);
    }
    out += guard.end();
    return { held, judged, input, out };
  }
  function* repeat(first: string, chunk: string, times: number): Iterable<string> {
    yield first;
    for (let i = 0; i < times; i++) yield chunk;
  }

  it('a long run of zero-width spaces is a break: what is before it goes out', () => {
    const chunk = '\u200b'.repeat(100);
    const run = feed(repeat('Hello ', chunk, 200));
    expect(run.held).toBeLessThanOrEqual(window + chunk.length);
    expect(run.out).toBe('Hello ' + chunk.repeat(200));
  });

  it('200,000 zero-width spaces are judged in linear work', () => {
    const run = feed(repeat('Hello ', '\u200b'.repeat(100), 2000));
    // Each push judges what is held and the push: never the whole answer again.
    expect(run.judged).toBeLessThanOrEqual(2 * run.input);
    expect(run.held).toBeLessThanOrEqual(window + 100);
  });

  it('padding that is no break still holds at most (BREAK_RUN + 1) × the window', () => {
    const dense = 'a' + '\u200b\u2060\u200b'; // three invisible units after each letter: no break
    const run = feed(repeat('', dense.repeat(25), 400));
    expect(run.held).toBeGreaterThan(window);
    expect(run.held).toBeLessThanOrEqual((BREAK_RUN + 1) * window + BREAK_RUN + dense.length * 25);
    const marks = '7\u0301\u0302\u0303'; // marks on a digit are dropped too
    expect(feed(repeat('', marks.repeat(25), 400)).held).toBeLessThanOrEqual((BREAK_RUN + 1) * window + BREAK_RUN + marks.length * 25);
  });

  it('a card padded short of a break is found streamed, one past it in neither', () => {
    const pad = (n: number) => `Card 4111 1111${'\u200b'.repeat(n)} 1111 1111 end`;
    for (const [n, found] of [
      [BREAK_RUN - 1, true],
      [BREAK_RUN, false],
    ] as const) {
      const whole = new OutputGuard(scanning).whole(pad(n));
      expect(streamed(new OutputGuard(scanning), pad(n))).toBe(whole);
      expect(whole.includes('[REDACTED:CREDIT_CARD]')).toBe(found);
    }
  });

  it('a card with a combining mark on each digit is redacted, marks and all, streamed', () => {
    const card = [...'4111111111111111'].map((d) => d + '\u0301').join('');
    expect(streamed(new OutputGuard(scanning), `pay ${card} now`)).toBe('pay [REDACTED:CREDIT_CARD] now');
  });
});
