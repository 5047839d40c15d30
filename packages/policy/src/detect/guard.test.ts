import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, OutputGuard, redactionMarker, type OutputAction, type OutputRules } from './index.js';

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
