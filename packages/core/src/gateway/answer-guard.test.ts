/**
 * The stream side of the output guard, event by event: how much it holds back and when it
 * hands it on. Surrogate restoring alone streams text and tool-call arguments through a
 * window no longer than the longest surrogate; with response scanning, a tool call's own
 * arguments are held until the call ends (and text the detectors' window); a stream that
 * ends or errors hands on what was held first.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '@tollgate/codecs/base';
import { BUILTIN_DETECTORS, redactionMarker, type OutputRules } from '@tollgate/policy/detectors';
import { dlpEngine } from '../dlp/engine.js';
import { guardStream, type AnswerGuard } from './answer-guard.js';
import { RequestContext } from './context.js';

const SURROGATE = 'qwerty@abcdef.example';
const ORIGINAL = 'jane.doe@acme.io';
const restoreOnly: OutputRules = { restore: new Map([[SURROGATE, ORIGINAL]]), detectors: [], action: () => 'log', marker: redactionMarker };
const scanning: OutputRules = { ...restoreOnly, detectors: [BUILTIN_DETECTORS.email], action: () => 'redact' };

function run(rules: OutputRules, events: StreamEvent[]): Array<{ after: string; out: StreamEvent[] }> {
  const guard: AnswerGuard = { tools: null, output: dlpEngine.guardAnswer(rules, true) };
  const transform = guardStream(guard, new RequestContext(() => 0, 'r', null));
  return events.map((event) => {
    const out: StreamEvent[] = [];
    transform(event, (e) => void out.push(e));
    return { after: event.type === 'tool_args_delta' ? `args ${event.delta}` : event.type === 'text_delta' ? `text ${event.text}` : event.type, out };
  });
}

const args = JSON.stringify({ to: SURROGATE, note: 'x'.repeat(60) });
const call = (pieces: string[]): StreamEvent[] => [
  { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'c1', name: 'send' } },
  ...pieces.map((delta): StreamEvent => ({ type: 'tool_args_delta', index: 0, delta })),
  { type: 'block_stop', index: 0 },
];
const pieces = (s: string, n: number) => Array.from({ length: Math.ceil(s.length / n) }, (_, i) => s.slice(i * n, i * n + n));
const argsOut = (steps: ReturnType<typeof run>) =>
  steps
    .flatMap((s) => s.out)
    .flatMap((e) => (e.type === 'tool_args_delta' ? [e.delta] : []))
    .join('');

describe('guardStream', () => {
  it('restoring alone streams a tool call’s arguments, holding back less than the longest surrogate', () => {
    const steps = run(restoreOnly, call(pieces(args, 3)));
    expect(argsOut(steps)).toBe(JSON.stringify({ to: ORIGINAL, note: 'x'.repeat(60) }));
    // Arguments go out before the call ends, never a surrogate's length behind what arrived.
    const at = args.indexOf(SURROGATE);
    let arrived = 0;
    let sent = 0;
    for (const step of steps.slice(1, -1)) {
      arrived = Math.min(arrived + 3, args.length);
      for (const e of step.out) if (e.type === 'tool_args_delta') sent += e.delta.length;
      // What was sent, in arrived characters (the original is shorter than its surrogate).
      const consumed = sent > at ? sent + SURROGATE.length - ORIGINAL.length : sent;
      expect(arrived - consumed).toBeLessThan(SURROGATE.length);
    }
  });

  it('with response scanning, a tool call’s arguments are judged whole: held until the call ends', () => {
    const steps = run(scanning, call(pieces(args, 3)));
    for (const step of steps.slice(0, -1)) expect(step.out.filter((e) => e.type === 'tool_args_delta')).toEqual([]);
    expect(argsOut(steps)).toBe(JSON.stringify({ to: ORIGINAL, note: 'x'.repeat(60) }));
  });

  it('hands on held text and arguments before an error ends the stream', () => {
    const text = `Hello ${SURROGATE.slice(0, 8)}`;
    const steps = run(restoreOnly, [
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      ...[...text].map((t): StreamEvent => ({ type: 'text_delta', index: 0, text: t })),
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'c1', name: 'send' } },
      { type: 'tool_args_delta', index: 1, delta: `{"to":"${SURROGATE.slice(0, 5)}` },
      { type: 'error', error: { code: 'upstream_error', status: 502, message: 'cut' } },
    ]);
    const last = steps.at(-1)!.out;
    expect(last.map((e) => e.type)).toEqual(['text_delta', 'tool_args_delta', 'error']);
    const all = steps.flatMap((s) => s.out);
    expect(all.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('')).toBe(text);
    expect(argsOut(steps)).toBe(`{"to":"${SURROGATE.slice(0, 5)}`);
  });
});
