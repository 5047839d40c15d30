// Types only: the registry needs no codec code at run time (and scripts run from source).
import type { Family, Issuer, WireFormat } from '@tollgate/codecs/base';
import type { ConversionPlan, OperationKind } from './types.js';

/** Every wire format tollgate speaks, with its family: spread it into a registry's `wire_formats`. */
export const DEFAULT_WIRE_FORMATS: Readonly<Record<WireFormat, { readonly family: Family }>> = Object.freeze({
  openai_chat: Object.freeze({ family: 'chat' }),
  openai_responses: Object.freeze({ family: 'responses' }),
  anthropic_messages: Object.freeze({ family: 'chat' }),
  anthropic_vertex: Object.freeze({ family: 'chat' }),
  gemini_generate_content: Object.freeze({ family: 'chat' }),
  bedrock_converse: Object.freeze({ family: 'chat' }),
});

/** The paths each vendor SDK calls, as entry routes: spread them into a registry's `entry_routes`. */
export const DEFAULT_ENTRY_ROUTES: readonly { readonly path: string; readonly format: WireFormat; readonly stream?: boolean }[] = Object.freeze([
  Object.freeze({ path: '/v1/chat/completions', format: 'openai_chat' }),
  Object.freeze({ path: '/v1/responses', format: 'openai_responses' }),
  Object.freeze({ path: '/v1/messages', format: 'anthropic_messages' }),
  Object.freeze({ path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' }),
  Object.freeze({ path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true }),
  Object.freeze({ path: '/model/{model}/converse', format: 'bedrock_converse' }),
  Object.freeze({ path: '/model/{model}/converse-stream', format: 'bedrock_converse', stream: true }),
] as const);

/**
 * Which vendor issues each format's opaque state, as codecs' `ISSUER_OF_FORMAT` says (a test
 * keeps the two equal; the `Record` type makes a new format a compile error here).
 */
export const FORMAT_ISSUER: Readonly<Record<WireFormat, Issuer>> = Object.freeze({
  openai_chat: 'openai',
  openai_responses: 'openai',
  anthropic_messages: 'anthropic',
  anthropic_vertex: 'anthropic',
  gemini_generate_content: 'google',
  bedrock_converse: 'anthropic',
});

/**
 * Formats that share one request grammar in different envelopes: only between these is a raw
 * plan possible (Bedrock carries Claude's signatures too, but in its own grammar: it translates).
 */
const ENVELOPE_FAMILY: Readonly<Partial<Record<WireFormat, string>>> = Object.freeze({
  anthropic_messages: 'anthropic',
  anthropic_vertex: 'anthropic',
});

/**
 * Formats whose vendors choose streaming by the URL (Gemini's `:streamGenerateContent`, Bedrock's
 * `/converse-stream`, Vertex's `:streamRawPredict`), not by a body flag: a generate operation of
 * theirs needs a `stream_path`, else a streamed request would go to the whole-answer endpoint.
 */
export const URL_STREAMED_FORMATS: ReadonlySet<WireFormat> = new Set<WireFormat>(['gemini_generate_content', 'bedrock_converse', 'anthropic_vertex']);

/**
 * Entry formats whose request body says whether to stream (`"stream": true|false`): for them the
 * body decides, so an entry route's `stream` would be overruled by any client that sends the flag
 * and is refused. Anthropic on Vertex carries Anthropic's body, flag included.
 */
export const BODY_STREAMED_FORMATS: ReadonlySet<WireFormat> = new Set<WireFormat>([
  'openai_chat',
  'openai_responses',
  'anthropic_messages',
  'anthropic_vertex',
]);

/** Every wire format tollgate speaks, in codecs' order. */
export const KNOWN_FORMATS: readonly WireFormat[] = Object.freeze(Object.keys(DEFAULT_WIRE_FORMATS) as WireFormat[]);

export function isKnownFormat(name: string): name is WireFormat {
  return Object.hasOwn(DEFAULT_WIRE_FORMATS, name);
}

/**
 * The conversion plan from an entry format to an upstream format, given that a route exists:
 * identity for the same format; raw between formats of one envelope family — one request
 * grammar, the same issuer of opaque state and the same request family (anthropic_messages ⇄
 * anthropic_vertex); translate otherwise.
 */
export function conversionPlan(from: WireFormat, to: WireFormat, familyOf: (f: WireFormat) => Family): ConversionPlan {
  if (from === to) return 'identity';
  const envelope = ENVELOPE_FAMILY[from];
  if (envelope !== undefined && envelope === ENVELOPE_FAMILY[to] && FORMAT_ISSUER[from] === FORMAT_ISSUER[to] && familyOf(from) === familyOf(to)) return 'raw';
  return 'translate';
}

export const PLAN_RANK: Readonly<Record<ConversionPlan, number>> = { identity: 0, raw: 1, translate: 2 };

/** The `{…}` placeholders of a path template that are not `{model}`, and how many `{model}` it has. */
export function templateProblems(path: string): { unknown: string[]; modelCount: number; strayBrace: boolean } {
  const unknown: string[] = [];
  let modelCount = 0;
  const stripped = path.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    if (name === 'model') modelCount++;
    else unknown.push(name);
    return '';
  });
  return { unknown, modelCount, strayBrace: /[{}]/.test(stripped) };
}

/**
 * The formats with a token-counting and an embeddings endpoint (the codecs' `countTokens` and
 * `embeddings`; a test keeps the two equal). Entry routes and operations of those kinds must use
 * one of them.
 */
export const KIND_FORMATS: Readonly<Record<Exclude<OperationKind, 'generate'>, readonly WireFormat[]>> = Object.freeze({
  count_tokens: Object.freeze(['anthropic_messages', 'openai_responses', 'gemini_generate_content', 'bedrock_converse'] as WireFormat[]),
  embed: Object.freeze(['openai_chat', 'gemini_generate_content'] as WireFormat[]),
});

/** True when `format` has an endpoint of `kind` (every format generates). */
export function formatHasKind(format: string, kind: OperationKind): boolean {
  return kind === 'generate' ? isKnownFormat(format) : (KIND_FORMATS[kind] as readonly string[]).includes(format);
}
