/** Response cells: an upstream of `from` answers a client of `to` (convertResponse). */
import { expect } from 'vitest';
import { promptTokens, type Usage } from '../../ir/usage.js';
import type { WireFormat } from '../../ir/wire-format.js';
import { foldSignature } from '../../shared/tool-call-id.js';
import { OPAQUE_CARRIER, USAGE_KINDS, projectUsage } from './capabilities.js';
import { assertEcho, clientCalls } from './echo.js';
import {
  ANSWER,
  REASONING_TEXT,
  USAGE,
  parallelResponse,
  textResponse,
  thinkingResponse,
  thinkingResponseOpaque,
  toolResponse,
  usageResponse,
} from './fixtures.js';
import { runResponse } from './io.js';
import { Findings, type Outcome } from './outcome.js';
import { leakForms, semanticOf, type Semantic, type ToolCallView } from './semantic.js';

const GEMINI = 'gemini_generate_content';

export async function textResponseCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  for (const reason of ['stop', 'length'] as const) {
    const run = runResponse(from, to, textResponse(from, reason));
    expect(semanticOf(run.decoded.content).text).toBe(ANSWER);
    expect(run.reference.finishReason.unified).toBe(reason);
    expect(run.decoded.finishReason.unified).toBe(reason);
    expect(run.warnings).toEqual([]);
  }
  return new Findings().outcome();
}

/**
 * The id a client of `to` sees for an upstream call: Gemini's thought signature is folded into
 * it for clients that only echo ids; a Gemini client carries the signature on the part itself.
 */
export function expectedClientId(to: WireFormat, call: ToolCallView): string {
  return to === GEMINI ? call.id : foldSignature(call.id, call.thoughtSignature);
}

/** Calls as the client sees them, then the echo back to the upstream. */
export function assertCallsAndEcho(from: WireFormat, to: WireFormat, reference: Semantic, seen: ToolCallView[]): void {
  expect(seen.map((c) => ({ name: c.name, args: c.args }))).toEqual(reference.toolCalls.map((c) => ({ name: c.name, args: c.args })));
  expect(seen.map((c) => c.id)).toEqual(reference.toolCalls.map((c) => expectedClientId(to, c)));
  if (to === GEMINI) expect(seen.map((c) => c.thoughtSignature)).toEqual(reference.toolCalls.map((c) => c.thoughtSignature));
  assertEcho(to, from, seen, reference.toolCalls);
}

async function toolCell(from: WireFormat, to: WireFormat, make: typeof toolResponse, count: number): Promise<Outcome> {
  const run = runResponse(from, to, make(from));
  const reference = semanticOf(run.reference.content);
  expect(reference.toolCalls).toHaveLength(count);
  const got = semanticOf(run.decoded.content);
  expect(got.text).toBe(reference.text);
  expect(run.decoded.finishReason.unified).toBe('tool_calls');
  expect(run.warnings).toEqual([]);
  assertCallsAndEcho(from, to, reference, clientCalls(to, run.wire));
  const findings = new Findings();
  if (from === GEMINI && to !== GEMINI)
    findings.info('Gemini thought signatures travel folded into the tool-call ids the client echoes, and are restored on its next request');
  return findings.outcome();
}

export const toolResponseCell = (from: WireFormat, to: WireFormat) => toolCell(from, to, toolResponse, 1);
export const parallelResponseCell = (from: WireFormat, to: WireFormat) => toolCell(from, to, parallelResponse, 2);

/**
 * Opaque reasoning values reach a client only where they can come back to their issuer: the same
 * vendor's format with a field for them. Otherwise they are dropped (`signature_dropped` for
 * responses) and appear nowhere in what the client receives.
 */
export function assertOpaque(
  to: WireFormat,
  wire: string,
  got: Semantic,
  opaque: Array<{ value: string; issuer: string }>,
  findings: Findings,
  from: WireFormat,
): number {
  let dropped = 0;
  for (const { value, issuer } of opaque) {
    if (OPAQUE_CARRIER[to] === issuer) {
      expect(
        got.opaque.map((o) => o.value),
        `${issuer} value shown to the ${to} client`,
      ).toContain(value);
    } else {
      dropped++;
      for (const form of leakForms(value)) expect(wire.includes(form), `${form} leaked to the ${to} client`).toBe(false);
    }
  }
  if (dropped > 0) {
    findings.loss(
      OPAQUE_CARRIER[to] === undefined && OPAQUE_CARRIER[from] === 'openai'
        ? 'Chat Completions has no field for encrypted reasoning: it is dropped, the summary is shown'
        : "another vendor's reasoning signatures are dropped; the reasoning text is shown",
    );
  }
  return dropped;
}

export async function thinkingResponseCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runResponse(from, to, thinkingResponse(from));
  const got = semanticOf(run.decoded.content);
  expect(got.text).toBe(ANSWER);
  // The visible reasoning reaches every client, in its own format's reasoning field.
  expect(got.reasoningText).toBe(REASONING_TEXT);
  expect(run.decoded.finishReason.unified).toBe('stop');
  const findings = new Findings().warnings(run.warnings);
  const dropped = assertOpaque(to, JSON.stringify(run.wire), got, thinkingResponseOpaque(from), findings, from);
  if (dropped > 0) expect(run.warnings.map((w) => w.code)).toContain('signature_dropped');
  else expect(run.warnings).toEqual([]);
  expect(run.warnings.every((w) => w.code === 'signature_dropped')).toBe(true);
  return findings.outcome();
}

/**
 * Usage: every kind both formats report is preserved exactly; the kinds one of them cannot
 * report are folded (1-hour cache writes into cache writes, cache writes into input, reasoning
 * left inside output), so prompt and output totals are always preserved.
 */
export function assertUsage(from: WireFormat, to: WireFormat, reference: Usage | undefined | null, got: Usage | undefined | null, findings: Findings): void {
  expect(reference).toEqual(projectUsage(from, USAGE));
  expect(got).toBeDefined();
  expect(got).not.toBeNull();
  expect(got).toEqual(projectUsage(to, reference!));
  expect(promptTokens(got!)).toBe(promptTokens(reference!));
  expect(got!.output).toBe(reference!.output);
  const lost = USAGE_KINDS.filter((k) => reference![k] !== got![k]);
  if (lost.includes('cacheWrite1h') && !lost.includes('input')) findings.loss('1-hour cache writes reported as cache writes (no TTL split)');
  if (lost.includes('input')) findings.loss('cache writes counted as input (no cache-write count)');
  if (lost.includes('reasoning')) findings.loss('reasoning tokens stay inside output (no reasoning count)');
}

export async function usageResponseCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runResponse(from, to, usageResponse(from));
  const findings = new Findings().warnings(run.warnings);
  expect(run.warnings).toEqual([]);
  assertUsage(from, to, run.reference.usage, run.decoded.usage, findings);
  return findings.outcome();
}
