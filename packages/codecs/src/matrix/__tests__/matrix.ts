/** The matrix: every scenario × every direction (request, response, stream) × every ordered pair of formats. */
import { WIRE_FORMATS, type WireFormat } from '../../ir/wire-format.js';
import { cutStreamCell, httpErrorCell, streamErrorCell } from './check-errors.js';
import { geminiCallRequestCell, imageRequestCell, parallelRequestCell, textRequestCell, thinkingRequestCell, toolRequestCell } from './check-requests.js';
import { parallelResponseCell, textResponseCell, thinkingResponseCell, toolResponseCell, usageResponseCell } from './check-responses.js';
import { interleavedStreamCell, parallelStreamCell, textStreamCell, thinkingStreamCell, toolStreamCell, usageStreamCell } from './check-streams.js';
import type { Outcome } from './outcome.js';

export type Direction = 'request' | 'response' | 'stream';

export interface Check {
  /** Unique within its scenario. */
  id: string;
  direction: Direction;
  /** What is converted, for the table legend. */
  label: string;
  run(from: WireFormat, to: WireFormat): Promise<Outcome>;
}

export interface Scenario {
  id: string;
  title: string;
  /** One paragraph: what the source holds and what is asserted. */
  about: string;
  checks: Check[];
}

export const FORMATS: readonly WireFormat[] = WIRE_FORMATS;
export const PAIRS: ReadonlyArray<readonly [WireFormat, WireFormat]> = FORMATS.flatMap((from) => FORMATS.map((to) => [from, to] as const));

export const SCENARIOS: Scenario[] = [
  {
    id: 'text',
    title: 'Plain text',
    about:
      'System prompt, one user turn, sampling settings; a text answer that stops and one that hits the token limit. Asserted: texts, max tokens, temperature, top_p, unified finish reason (`stop`, `length`).',
    checks: [
      { id: 'request', direction: 'request', label: 'request', run: textRequestCell },
      { id: 'response', direction: 'response', label: 'response', run: textResponseCell },
      { id: 'stream', direction: 'stream', label: 'stream', run: textStreamCell },
    ],
  },
  {
    id: 'tool',
    title: 'Single tool call',
    about:
      "The tool definition, one call and its result in the next request; an answer with text and one call. Asserted: definitions, names, JSON-equal arguments, call and result paired by id, finish `tool_calls`, and the round trip through the client (the upstream gets its own ids and Gemini thought signatures back). The last check is a client's request echoing a call that a Gemini upstream made (the thought signature folded into the id it was shown): the signature goes back to Gemini only.",
    checks: [
      { id: 'request', direction: 'request', label: 'request', run: toolRequestCell },
      { id: 'response', direction: 'response', label: 'response', run: toolResponseCell },
      { id: 'stream', direction: 'stream', label: 'stream', run: toolStreamCell },
      { id: 'gemini-call', direction: 'request', label: 'request echoing a call a Gemini upstream made', run: geminiCallRequestCell },
    ],
  },
  {
    id: 'parallel',
    title: 'Parallel tool calls',
    about:
      'Two calls in one turn and both results; streamed one after the other (as every vendor does) and with interleaved argument deltas (valid Chat Completions and Responses wire, addressed by index). Asserted as for a single call, in order.',
    checks: [
      { id: 'request', direction: 'request', label: 'request', run: parallelRequestCell },
      { id: 'response', direction: 'response', label: 'response', run: parallelResponseCell },
      { id: 'stream', direction: 'stream', label: 'stream', run: parallelStreamCell },
      { id: 'interleaved', direction: 'stream', label: 'stream with interleaved argument deltas', run: interleavedStreamCell },
    ],
  },
  {
    id: 'thinking',
    title: 'Thinking and reasoning',
    about:
      "Each format's own reasoning with its opaque values (Anthropic signed and redacted thinking, OpenAI encrypted reasoning, Gemini thought signatures; Chat Completions `reasoning_content` has none), in a request's history and in answers. Asserted: a value reaches only the vendor that issued it, where the format has a field for it; otherwise it is dropped with `signature_dropped` and appears nowhere in the converted body in any form. Visible reasoning text reaches every client.",
    checks: [
      { id: 'request', direction: 'request', label: 'request', run: thinkingRequestCell },
      { id: 'response', direction: 'response', label: 'response', run: thinkingResponseCell },
      { id: 'stream', direction: 'stream', label: 'stream', run: thinkingStreamCell },
    ],
  },
  {
    id: 'images',
    title: 'Images',
    about: 'A user turn with a base64 PNG and an image URL. Asserted: both images, bytes and URL unchanged.',
    checks: [{ id: 'request', direction: 'request', label: 'request', run: imageRequestCell }],
  },
  {
    id: 'errors',
    title: 'Errors',
    about:
      "Upstream errors (invalid request, authentication, permission, not found, rate limit with retry-after, quota, overloaded, unavailable, server error) rendered as the source's HTTP error body; a stream that fails mid-way with the source's in-stream error event; a stream cut off before its terminal event. Asserted: the target's error shape, the canonical code, message, retry-after and `x-should-retry`; a failed stream keeps the text already sent and ends with the target's error event, never a clean finish.",
    checks: [
      { id: 'http', direction: 'response', label: 'HTTP error body', run: httpErrorCell },
      { id: 'in-stream', direction: 'stream', label: 'in-stream error event', run: streamErrorCell },
      { id: 'cut', direction: 'stream', label: 'stream cut before its terminal event', run: cutStreamCell },
    ],
  },
  {
    id: 'usage',
    title: 'Usage',
    about:
      'Input 1200, output 340, cache read 800, cache write 150 (5 min) + 50 (1 h), reasoning 120, as far as the source reports them. Asserted: every kind both formats report is preserved exactly; the others are folded (prompt and output totals never change).',
    checks: [
      { id: 'response', direction: 'response', label: 'response', run: usageResponseCell },
      { id: 'stream', direction: 'stream', label: 'stream', run: usageStreamCell },
    ],
  },
];

export function cellKey(scenario: string, check: string, from: WireFormat, to: WireFormat): string {
  return `${scenario}.${check}: ${from} → ${to}`;
}

/**
 * Cells that fail because of a known bug, with the reason. Their tests use `it.fails` (so a fix
 * is noticed) and the table shows them as failing. Keep this empty whenever possible.
 */
export const KNOWN_FAILURES: Readonly<Record<string, string>> = {};
