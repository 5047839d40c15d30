/**
 * Error cells: an upstream error of `from` reaches a client of `to` in `to`'s own error shape, as
 * an HTTP error body, as an in-stream error event, and when the upstream stream is cut off. A
 * failed stream always ends with the target's error event, never with a clean finish.
 */
import { expect } from 'vitest';
import { ERROR_CODES, type ErrorInfo } from '../../errors/gateway-error.js';
import type { WireFormat } from '../../ir/wire-format.js';
import { codecs } from '../../registry.js';
import type { SseMessage } from '../../sse/parse.js';
import { createFrameReader } from '../../stream-framing.js';
import { alias } from './capabilities.js';
import { HTTP_ERRORS, PARTIAL, STREAM_ERROR, cutStream, errorStream } from './fixtures.js';
import { runStream } from './io.js';
import { Findings, type Outcome } from './outcome.js';
import { streamView } from './semantic.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The error body shape a client of `format` parses. */
export function assertErrorShape(format: WireFormat, body: unknown): void {
  expect(isObj(body)).toBe(true);
  const b = body as Json;
  if (format === 'bedrock_converse') {
    // `{ message }`; the exception name travels in the x-amzn-errortype header.
    expect(typeof b['message'], JSON.stringify(body)).toBe('string');
    return;
  }
  const error = b['error'];
  expect(isObj(error), JSON.stringify(body)).toBe(true);
  const e = error as Json;
  expect(typeof e['message']).toBe('string');
  switch (format) {
    case 'openai_chat':
    case 'openai_responses':
      expect(typeof e['type']).toBe('string');
      expect('code' in e && 'param' in e).toBe(true);
      break;
    case 'anthropic_messages':
    case 'anthropic_vertex':
      expect(b['type']).toBe('error');
      expect(typeof e['type']).toBe('string');
      break;
    case 'gemini_generate_content':
      expect(typeof e['code']).toBe('number');
      expect(typeof e['status']).toBe('string');
      break;
  }
}

/** Messages the decoders replace (they concern the gateway's own upstream account). */
const SCRUBBED = new Set(['authentication_failed', 'permission_denied']);

export async function httpErrorCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const findings = new Findings();
  for (const original of HTTP_ERRORS) {
    const upstream = codecs[from].renderError(original);
    assertErrorShape(from, upstream.body);
    const info = codecs[from].decodeError(upstream.status, structuredClone(upstream.body), new Headers(upstream.headers ?? {}));
    // A `retry-after` header is the gateway's to read (core does), not the body codec's.
    const header = upstream.headers?.['retry-after'];
    if (info.retryAfterS === undefined && header !== undefined) info.retryAfterS = Number(header);
    const rendered = codecs[to].renderError(info);
    assertErrorShape(to, rendered.body);
    expect(rendered.status).toBeGreaterThanOrEqual(400);
    const seen = codecs[to].decodeError(rendered.status, structuredClone(rendered.body), new Headers(rendered.headers ?? {}));
    const expected = alias(to, alias(from, original.code));
    expect(seen.code, `${original.code}: ${from} → ${to}`).toBe(expected);
    // Retryable stays retryable and final stays final; a spent quota that arrives as a rate limit
    // keeps `x-should-retry: false` wherever the target can tell it apart.
    if (original.code !== 'quota_exceeded') expect(ERROR_CODES[seen.code].retryable).toBe(ERROR_CODES[original.code].retryable);
    if (!SCRUBBED.has(original.code) && !(SCRUBBED.has(info.code) || SCRUBBED.has(seen.code))) expect(seen.message).toContain(original.message);
    if (info.code === 'quota_exceeded') expect(rendered.headers?.['x-should-retry']).toBe('false');
    if (info.retryAfterS !== undefined) expect(rendered.headers?.['retry-after']).toBe(String(info.retryAfterS));
    if (expected !== original.code) findings.loss(`${original.code} arrives as ${expected}`);
    if (original.retryAfterS !== undefined) expect(info.retryAfterS).toBe(original.retryAfterS);
  }
  return findings.outcome();
}

function messages(format: WireFormat, wire: Uint8Array): SseMessage[] {
  const out: SseMessage[] = [];
  const reader = createFrameReader(
    codecs[format],
    (m) => out.push(m),
    () => {},
  );
  reader.feed(wire);
  reader.end();
  return out;
}

/** The last event is `format`'s error event, and nothing in the stream says it finished cleanly. */
export function assertEndsWithError(format: WireFormat, wire: Uint8Array): void {
  const all = messages(format, wire);
  const last = all[all.length - 1];
  expect(last, 'the stream is empty').toBeDefined();
  const data = (m: SseMessage): Json => {
    try {
      const v: unknown = JSON.parse(m.data);
      return isObj(v) ? v : {};
    } catch {
      return {};
    }
  };
  switch (format) {
    case 'openai_chat':
      expect(isObj(data(last!)['error']), `last event: ${last!.data}`).toBe(true);
      expect(all.some((m) => m.data.trim() === '[DONE]')).toBe(false);
      expect(all.some((m) => ((data(m)['choices'] as Json[] | undefined) ?? []).some((c) => c['finish_reason'] != null))).toBe(false);
      break;
    case 'openai_responses': {
      expect(data(last!)['type'], `last event: ${last!.data}`).toBe('response.failed');
      expect(all.some((m) => data(m)['type'] === 'error')).toBe(true);
      expect(all.some((m) => ['response.completed', 'response.incomplete'].includes(String(data(m)['type'])))).toBe(false);
      break;
    }
    case 'anthropic_messages':
    case 'anthropic_vertex':
      expect(data(last!)['type'], `last event: ${last!.data}`).toBe('error');
      expect(all.some((m) => data(m)['type'] === 'message_stop' || data(m)['type'] === 'message_delta')).toBe(false);
      break;
    case 'gemini_generate_content':
      expect(isObj(data(last!)['error']), `last event: ${last!.data}`).toBe(true);
      expect(all.some((m) => ((data(m)['candidates'] as Json[] | undefined) ?? []).some((c) => c['finishReason'] != null))).toBe(false);
      break;
    case 'bedrock_converse':
      expect(last!.exception, `last frame: ${last!.event}`).toBe(true);
      expect(typeof data(last!)['message']).toBe('string');
      expect(all.some((m) => m.event === 'messageStop' || m.event === 'metadata')).toBe(false);
      break;
  }
}

function assertFailedStream(got: ReturnType<typeof streamView>, error: ErrorInfo | undefined): void {
  expect(got.problems).toEqual([]);
  expect(got.terminal).toBe('error');
  expect(got.finish).toBeUndefined();
  expect(got.text).toBe(PARTIAL);
  expect(got.error).toBeDefined();
  if (error !== undefined) expect(got.error!.code).toBe(error.code);
}

export async function streamErrorCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const findings = new Findings();
  const run = await runStream(from, to, errorStream(from, STREAM_ERROR));
  const reference = streamView(run.reference);
  expect(reference.terminal).toBe('error');
  const expected = alias(to, alias(from, STREAM_ERROR.code));
  assertFailedStream(streamView(run.decoded), { ...STREAM_ERROR, code: expected });
  assertEndsWithError(to, run.bytes);
  if (expected !== STREAM_ERROR.code) findings.loss(`${STREAM_ERROR.code} arrives as ${expected}`);
  return findings.outcome();
}

/** The upstream connection drops before the terminal event: the client gets an error, not a clean end. */
export async function cutStreamCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const cut = await runStream(from, to, cutStream(from), true);
  expect(streamView(cut.reference).terminal).toBe('error');
  const got = streamView(cut.decoded);
  assertFailedStream(got, undefined);
  expect(ERROR_CODES[got.error!.code].retryable).toBe(true);
  assertEndsWithError(to, cut.bytes);
  return new Findings().outcome();
}
