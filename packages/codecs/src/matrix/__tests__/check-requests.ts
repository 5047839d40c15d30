/** Request cells: a client of `from` reaches an upstream of `to` (convertRequest). */
import { expect } from 'vitest';
import type { ImagePart } from '../../ir/content.js';
import type { Request } from '../../ir/request.js';
import { ISSUER_OF_FORMAT, type WireFormat } from '../../ir/wire-format.js';
import { baseCallId } from '../../shared/tool-call-id.js';
import { OPAQUE_CARRIER, sameReasoningGrammar } from './capabilities.js';
import {
  FOLDED_GEMINI_ID,
  imageUrlFor,
  OPAQUE,
  PNG_BASE64,
  REASONING_TEXT,
  TIME_ARGS,
  TIME_RESULT,
  TOOLS,
  WEATHER_ARGS,
  WEATHER_RESULT,
  geminiCallRequest,
  imageRequest,
  parallelRequest,
  textRequest,
  thinkingRequest,
  thinkingRequestOpaque,
  toolRequest,
} from './fixtures.js';
import { runRequest, UPSTREAM_MODEL, type RequestRun } from './io.js';
import { Findings, type Outcome } from './outcome.js';
import { assistantSemantic, leakForms, parseArgs } from './semantic.js';

const GEMINI = 'gemini_generate_content';

function userTexts(request: Request): string[] {
  return request.messages.flatMap((m) => (m.role === 'user' ? m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []));
}

function commonRequest(run: RequestRun): void {
  expect(run.unclassified).toEqual([]);
  expect(run.decoded.model).toBe(UPSTREAM_MODEL);
  expect(run.decoded.system.map((p) => p.text).join('\n\n')).toBe('You are terse.');
}

export async function textRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runRequest(from, to, textRequest(from));
  commonRequest(run);
  expect(userTexts(run.decoded)).toEqual(['Say hello to the world ✓ — «in French»']);
  expect(run.decoded.maxTokens).toBe(8192);
  expect(run.decoded.temperature).toBe(0.5);
  expect(run.decoded.topP).toBe(0.9);
  expect(run.warnings).toEqual([]);
  return new Findings().outcome();
}

/** Tool definitions, the calls (ids, names, JSON-equal arguments) and results paired by id. */
function assertTools(run: RequestRun, source: Request, results: Record<string, string>): void {
  expect(run.decoded.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))).toEqual(
    TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
  );
  const want = assistantSemantic(source.messages).toolCalls;
  const got = assistantSemantic(run.decoded.messages).toolCalls;
  expect(got.map((c) => ({ id: c.id, name: c.name, args: c.args }))).toEqual(want.map((c) => ({ id: c.id, name: c.name, args: c.args })));
  const toolResults = run.decoded.messages.flatMap((m) => (m.role === 'tool' ? m.content : []));
  expect(toolResults.map((r) => r.toolCallId)).toEqual(got.map((c) => c.id));
  expect(toolResults.map((r) => parseArgs(r.content.map((p) => (p.type === 'text' ? p.text : '')).join('')))).toEqual(
    got.map((c) => parseArgs(results[c.name]!)),
  );
}

/** Gemini's thought signatures on the calls: kept for Gemini, never sent elsewhere (with a warning). */
function assertCallSignatures(run: RequestRun, source: Request, from: WireFormat, to: WireFormat, findings: Findings): void {
  const calls = assistantSemantic(run.decoded.messages).toolCalls;
  if (from !== GEMINI) {
    expect(calls.every((c) => c.thoughtSignature === undefined)).toBe(true);
    expect(run.warnings).toEqual([]);
    return;
  }
  const signatures = assistantSemantic(source.messages).toolCalls.map((c) => c.thoughtSignature);
  if (to === GEMINI) {
    expect(calls.map((c) => c.thoughtSignature)).toEqual(signatures);
    expect(run.warnings).toEqual([]);
    return;
  }
  expect(calls.every((c) => c.thoughtSignature === undefined)).toBe(true);
  expect(run.warnings.map((w) => w.code)).toEqual(signatures.map(() => 'signature_dropped'));
  assertNoLeak(
    run,
    signatures.filter((s): s is string => s !== undefined),
  );
  findings.warnings(run.warnings).loss('Gemini thought signatures are not sent to other vendors');
}

function assertNoLeak(run: RequestRun, values: string[]): void {
  const wire = JSON.stringify(run.wire);
  for (const value of values) for (const form of leakForms(value)) expect(wire.includes(form), `${form} leaked into the upstream body`).toBe(false);
}

export async function toolRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const source = toolRequest(from);
  const run = runRequest(from, to, source);
  commonRequest(run);
  assertTools(run, source, { get_weather: WEATHER_RESULT });
  expect(assistantSemantic(run.decoded.messages).text).toBe('Let me check.');
  expect(run.decoded.toolChoice).toEqual({ type: 'auto' });
  const findings = new Findings();
  assertCallSignatures(run, source, from, to, findings);
  return findings.outcome();
}

export async function parallelRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const source = parallelRequest(from);
  const run = runRequest(from, to, source);
  commonRequest(run);
  assertTools(run, source, { get_weather: WEATHER_RESULT, get_time: TIME_RESULT });
  expect(assistantSemantic(run.decoded.messages).toolCalls.map((c) => c.args)).toEqual([JSON.parse(WEATHER_ARGS), JSON.parse(TIME_ARGS)]);
  const findings = new Findings();
  assertCallSignatures(run, source, from, to, findings);
  return findings.outcome();
}

/**
 * Earlier reasoning and its opaque values. Each value goes back only to the vendor that issued it
 * (and only where the target format has a field for it); any other value is dropped with a
 * `signature_dropped` warning and appears nowhere in the upstream body, in any form.
 */
export async function thinkingRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runRequest(from, to, thinkingRequest(from));
  commonRequest(run);
  const findings = new Findings().warnings(run.warnings);
  const got = assistantSemantic(run.decoded.messages);
  expect(got.text).toBe('Hello!');
  expect(userTexts(run.decoded)).toEqual(['Hello?', 'And in French?']);
  const carrier = OPAQUE_CARRIER[to];
  let dropped = 0;
  for (const { value, issuer } of thinkingRequestOpaque(from)) {
    if (carrier === issuer) {
      expect(
        got.opaque.map((o) => o.value),
        `${issuer} value kept for ${to}`,
      ).toContain(value);
    } else {
      dropped++;
      expect(got.opaque.map((o) => o.value)).not.toContain(value);
      assertNoLeak(run, [value]);
    }
  }
  if (dropped > 0) {
    expect(run.warnings.map((w) => w.code)).toContain('signature_dropped');
    findings.loss(
      ISSUER_OF_FORMAT[from] === ISSUER_OF_FORMAT[to]
        ? `Chat Completions has no field for ${vendorOf(from)} encrypted reasoning`
        : `${vendorOf(from)} reasoning signatures are not sent to other vendors`,
    );
  } else expect(run.warnings.map((w) => w.code)).not.toContain('signature_dropped');
  // The reasoning text goes back verbatim only in the grammar it came from; elsewhere it may be dropped, never silently.
  if (sameReasoningGrammar(from, to)) expect(got.reasoningText).toBe(REASONING_TEXT);
  else if (got.reasoningText === '') {
    expect(run.warnings.length).toBeGreaterThan(0);
    findings.loss('earlier reasoning text is not sent (only the vendor that produced it takes it back)');
  } else expect(got.reasoningText).toBe(REASONING_TEXT);
  // Thinking stays requested, in the target's own terms (an effort level or a budget: `lossy_conversion`).
  const reasoning = run.decoded.reasoning;
  expect(reasoning?.effort !== undefined || (reasoning?.budgetTokens ?? 0) > 0 || reasoning?.enabled === true, JSON.stringify(reasoning)).toBe(true);
  return findings.outcome();
}

/**
 * A call made by a Gemini upstream, echoed by the client: its thought signature goes back to
 * Gemini (restored from the folded id) and to no one else (`signature_dropped`, the plain id).
 */
export async function geminiCallRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runRequest(from, to, geminiCallRequest(from));
  commonRequest(run);
  const calls = assistantSemantic(run.decoded.messages).toolCalls;
  expect(calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: JSON.parse(WEATHER_ARGS) }]);
  const results = run.decoded.messages.flatMap((m) => (m.role === 'tool' ? m.content : []));
  expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
  const findings = new Findings().warnings(run.warnings);
  if (to === GEMINI) {
    expect(calls[0]!.thoughtSignature).toBe(OPAQUE.googleCall);
    expect(run.warnings).toEqual([]);
    if (from !== GEMINI) findings.info('the thought signature is unfolded from the id and put back on the call');
  } else {
    expect(calls[0]!.thoughtSignature).toBeUndefined();
    expect(calls[0]!.id).toBe(from === GEMINI ? 'gcall_0' : baseCallId(FOLDED_GEMINI_ID));
    expect(run.warnings.map((w) => w.code)).toEqual(['signature_dropped']);
    assertNoLeak(run, [OPAQUE.googleCall]);
    findings.loss('Gemini thought signatures are not sent to other vendors');
  }
  return findings.outcome();
}

function vendorOf(format: WireFormat): string {
  return { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Gemini' }[ISSUER_OF_FORMAT[format]];
}

export async function imageRequestCell(from: WireFormat, to: WireFormat): Promise<Outcome> {
  const run = runRequest(from, to, imageRequest(from));
  commonRequest(run);
  const user = run.decoded.messages[0];
  expect(user?.role).toBe('user');
  const images = (user?.content ?? []).filter((p): p is ImagePart => p.type === 'image');
  const url = imageUrlFor(from);
  // Bedrock takes images inline or from S3: a web URL cannot reach it.
  const webToBedrock = to === 'bedrock_converse' && !url.startsWith('s3://');
  expect(images).toHaveLength(webToBedrock ? 1 : 2);
  expect(images[0]!.source).toEqual({ kind: 'base64', mediaType: 'image/png', data: PNG_BASE64 });
  if (!webToBedrock) {
    const second = images[1]!.source;
    // Gemini reads a non-web URI (Bedrock's s3://) as a file URI: the same location, kept verbatim.
    if (url.startsWith('s3://') && to === 'gemini_generate_content') expect(second).toMatchObject({ kind: 'file_id', fileId: url });
    else expect(second.kind === 'url' ? second.url : second.kind).toBe(url);
  }
  expect(userTexts(run.decoded)).toEqual(['What is in these two pictures?']);
  // Only OpenAI formats have the `detail` hint (a Responses client always sends one).
  const details = imageRequest(from).messages[0]!.content.filter((p): p is ImagePart => p.type === 'image' && p.detail !== undefined);
  const findings = new Findings().warnings(run.warnings);
  const expected: Array<[string, string]> = [];
  if (details.length > 0 && !to.startsWith('openai_')) {
    expected.push(...details.map((_, i): [string, string] => ['dropped_field', `messages[0].content[${i + 1}].detail`]));
    findings.loss('the image `detail` hint is dropped (only OpenAI formats have one)');
  }
  if (webToBedrock) {
    expected.push(['dropped_field', 'messages[0].content[2]']);
    findings.loss('the web image URL is dropped (Bedrock takes images inline or from S3)');
  }
  expect(run.warnings.map((w) => [w.code, w.path]).sort()).toEqual(expected.sort());
  return findings.outcome();
}
