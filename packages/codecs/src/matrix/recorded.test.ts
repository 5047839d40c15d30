/**
 * The matrix over recorded provider payloads (test/fixtures): every recorded stream and
 * response of a format, converted to every format and read back with the target codec, keeps its
 * semantic content — texts, visible reasoning, tool names, JSON-equal arguments and the ids the
 * client must echo, unified finish reason, usage (folded as the target reports it), and how a
 * stream ended. Complements the generated matrix, whose sources are written by the codecs.
 */
import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson, fixtureText } from '../../../../test/support/fixtures.js';
import { convertResponse } from '../convert.js';
import { convertStream } from '../convert-stream.js';
import type { Usage } from '../ir/usage.js';
import { WIRE_FORMATS, type WireFormat } from '../ir/wire-format.js';
import { codecs } from '../registry.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { recordedStream } from '../bedrock-converse/__tests__/smithy.js';
import { alias, projectUsage } from './__tests__/capabilities.js';
import { expectedClientId } from './__tests__/check-responses.js';
import { CLIENT_MODEL, decodeEvents, readBytes, streamOf } from './__tests__/io.js';
import { semanticOf, streamView, type Semantic } from './__tests__/semantic.js';

const BEDROCK: WireFormat = 'bedrock_converse';
const DIRS: Array<[string, WireFormat]> = [
  ['openai-chat', 'openai_chat'],
  ['openai-responses', 'openai_responses'],
  ['anthropic-messages', 'anthropic_messages'],
  ['gemini', 'gemini_generate_content'],
  ['bedrock-converse', 'bedrock_converse'],
];

/** Recorded streams as the upstream sent them: SSE text, or Bedrock's binary event stream (decoded recordings framed again). */
const streams = [
  ...DIRS.filter(([, f]) => f !== 'bedrock_converse').flatMap(([dir, format]) =>
    fixtureFiles(dir, '.sse').map((file) => ({ file, format, bytes: () => new TextEncoder().encode(fixtureText(file)) })),
  ),
  ...[
    ...fixtureFiles('bedrock-converse', '.eventstream'),
    ...fixtureFiles('bedrock-converse', '.json').filter((f) => f.includes('/stream-') && !f.includes('stream-tool-use')),
  ].map((file) => ({
    file,
    format: BEDROCK,
    bytes: () => recordedStream(file),
  })),
];
const responses = DIRS.flatMap(([dir, format]) =>
  fixtureFiles(dir, '.json')
    .filter((f) => f.includes('/response-'))
    .map((file) => ({ file, format })),
);

/** What must survive any conversion. Usage is compared as the target reports it. */
function assertSameContent(to: WireFormat, reference: Semantic, got: Semantic): void {
  // Only the OpenAI formats have a refusal part; elsewhere a refusal is sent as text (with a warning).
  if (to.startsWith('openai_')) {
    expect(got.text).toBe(reference.text);
    expect(got.refusal).toBe(reference.refusal);
  } else expect(got.text + got.refusal).toBe(reference.text + reference.refusal);
  expect(got.reasoningText).toBe(reference.reasoningText);
  expect(got.toolCalls.map((c) => ({ name: c.name, args: c.args }))).toEqual(reference.toolCalls.map((c) => ({ name: c.name, args: c.args })));
  // The ids a client echoes: the upstream's own, with a Gemini thought signature folded in for
  // clients that only echo ids (the Anthropic response decoder unfolds it again: fold it back).
  const seen = got.toolCalls.map((c) => (to === 'gemini_generate_content' ? c.id : foldSignature(c.id, c.thoughtSignature)));
  expect(seen).toEqual(reference.toolCalls.map((c) => expectedClientId(to, c)));
}

function assertUsage(to: WireFormat, reference: Usage | null | undefined, got: Usage | null | undefined): void {
  if (reference === null || reference === undefined) return;
  expect(got).toEqual(projectUsage(to, reference));
}

describe('recorded streams through every format', () => {
  for (const { file, format: from, bytes } of streams) {
    describe(file, () => {
      it.each(WIRE_FORMATS.map((to) => ({ to })))('→ $to', async ({ to }) => {
        const source = bytes();
        const reference = streamView(await decodeEvents(from, source));
        const wire = await readBytes(convertStream(streamOf(source), from, to, { model: CLIENT_MODEL }));
        const got = streamView(await decodeEvents(to, wire));
        expect(got.problems).toEqual([]);
        expect(got.terminal).toBe(reference.terminal);
        assertSameContent(to, reference, got);
        if (reference.terminal === 'error') {
          expect(got.error?.code).toBe(alias(to, alias(from, reference.error!.code)));
        } else {
          expect(got.finish?.unified).toBe(reference.finish?.unified);
          assertUsage(to, reference.usage, got.usage);
        }
      });
    });
  }
});

describe('recorded responses through every format', () => {
  for (const { file, format: from } of responses) {
    describe(file, () => {
      it.each(WIRE_FORMATS.map((to) => ({ to })))('→ $to', ({ to }) => {
        const body = fixtureJson(file);
        const reference = codecs[from].decodeResponse(structuredClone(body)).response;
        const converted = convertResponse(structuredClone(body), from, to, { model: CLIENT_MODEL });
        const got = codecs[to].decodeResponse(structuredClone(converted.body)).response;
        expect(got.finishReason.unified).toBe(reference.finishReason.unified);
        assertSameContent(to, semanticOf(reference.content), semanticOf(got.content));
        assertUsage(to, reference.usage, got.usage);
      });
    });
  }
});
