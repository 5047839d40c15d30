/** Stream cells: an upstream stream of `from` relayed to a client of `to` (convertStream → decodeStream). */
import { expect } from 'vitest';
import type { StreamEvent } from '../../ir/stream-event.js';
import type { WireFormat } from '../../ir/wire-format.js';
import { assertOpaque, assertCallsAndEcho, assertUsage } from './check-responses.js';
import { ANSWER, REASONING_TEXT, parallelStream, textStream, thinkingResponseOpaque, thinkingStream, toolStream, usageStream } from './fixtures.js';
import { runStream, type StreamRun } from './io.js';
import { Findings, type Outcome } from './outcome.js';
import { streamView, type StreamView } from './semantic.js';

const GEMINI = 'gemini_generate_content';

/** Both ends are well-formed streams that finished cleanly. */
function views(run: StreamRun): { reference: StreamView; got: StreamView } {
  const reference = streamView(run.reference);
  const got = streamView(run.decoded);
  expect(reference.problems).toEqual([]);
  expect(reference.terminal).toBe('message_stop');
  expect(got.problems).toEqual([]);
  expect(got.terminal, got.error?.message).toBe('message_stop');
  expect(run.decoded[0]?.type).toBe('message_start');
  return { reference, got };
}

export async function textStreamCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const { reference, got } = views(await runStream(from, to, textStream(from)));
  expect(reference.text).toBe(ANSWER);
  expect(got.text).toBe(ANSWER);
  expect(got.finish?.unified).toBe('stop');
  return new Findings().outcome();
}

async function toolCell(from: WireFormat, to: WireFormat, events: StreamEvent[], count: number): Promise<Outcome> {
  const { reference, got } = views(await runStream(from, to, events));
  expect(reference.toolCalls).toHaveLength(count);
  expect(got.text).toBe(reference.text);
  expect(got.finish?.unified).toBe('tool_calls');
  assertCallsAndEcho(from, to, reference, got.toolCalls);
  const findings = new Findings();
  if (from === GEMINI && to !== GEMINI)
    findings.info('Gemini thought signatures travel folded into the tool-call ids the client echoes, and are restored on its next request');
  return findings.outcome();
}

export const toolStreamCell = (from: WireFormat, to: WireFormat) => toolCell(from, to, toolStream(from), 1);
export const parallelStreamCell = (from: WireFormat, to: WireFormat) => toolCell(from, to, parallelStream(from), 2);
export const interleavedStreamCell = (from: WireFormat, to: WireFormat) => toolCell(from, to, parallelStream(from, true), 2);

/**
 * As for responses; but `convertStream` has no warning channel, so a dropped signature is dropped
 * silently (and asserted absent from the bytes the client receives).
 */
export async function thinkingStreamCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = await runStream(from, to, thinkingStream(from));
  const { reference, got } = views(run);
  expect(reference.reasoningText).toBe(REASONING_TEXT);
  expect(got.reasoningText).toBe(REASONING_TEXT);
  expect(got.text).toBe(ANSWER);
  expect(got.finish?.unified).toBe('stop');
  const findings = new Findings();
  // The reference shows what the source stream really carried (all of the fixture's values).
  expect(reference.opaque.map((o) => o.value).sort()).toEqual(
    thinkingResponseOpaque(from)
      .map((o) => o.value)
      .sort(),
  );
  assertOpaque(to, run.wire, got, thinkingResponseOpaque(from), findings, from);
  return findings.outcome();
}

export async function usageStreamCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const { reference, got } = views(await runStream(from, to, usageStream(from)));
  const findings = new Findings();
  assertUsage(from, to, reference.usage, got.usage, findings);
  return findings.outcome();
}
