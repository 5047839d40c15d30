/**
 * The real `@google/genai` SDK against a loopback server that serves recorded Gemini responses and
 * streams re-encoded through the gemini_generate_content codec (wire → IR → wire), an Anthropic
 * stream converted to Gemini, and errors rendered by the codec.
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertStream } from '../packages/codecs/src/convert-stream.js';
import { errorInfo } from '../packages/codecs/src/errors/gateway-error.js';
import { geminiCodec as codec } from '../packages/codecs/src/gemini/index.js';
import { fixtureJson, fixtureText } from './support/fixtures.js';
import { chunkedResponse, startServer, type TestServer } from './support/http-server.js';

/** Split text into chunks of varying small sizes (deterministic). */
function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0, n = 1; i < text.length; n = (n * 7 + 3) % 97 || 1) {
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const sse = { 'content-type': 'text/event-stream' };

let server: TestServer;
let ai: GoogleGenAI;
/** The last request body the SDK sent, decoded by the codec. */
let lastDecoded: ReturnType<typeof codec.decodeRequest> | undefined;

beforeAll(async () => {
  server = await startServer(async (request) => {
    const url = new URL(request.url);
    const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (match === null) return new Response('not found', { status: 404 });
    const [, model, method] = match as unknown as [string, string, string];
    const [kind, name] = decodeURIComponent(model).split('~') as [string, string];
    // Whatever the SDK sent must decode, with the model from the path.
    lastDecoded = codec.decodeRequest(await request.json(), { model, stream: method === 'streamGenerateContent' });
    if (kind === 'error') {
      const info =
        name === 'quota'
          ? errorInfo('quota_exceeded', 'Spend limit reached.')
          : codec.decodeError(429, fixtureJson('gemini/error-429-resource-exhausted.json'));
      const rendered = codec.renderError(info);
      return Response.json(rendered.body, { status: rendered.status, headers: rendered.headers ?? {} });
    }
    if (method === 'generateContent') {
      const decoded = codec.decodeResponse(fixtureJson(`gemini/${name}.json`));
      return Response.json(codec.encodeResponse(decoded.response).body);
    }
    expect(url.searchParams.get('alt')).toBe('sse');
    const anthropic = kind === 'anthropic' || kind === 'anthropic-late';
    const from = anthropic ? 'anthropic_messages' : 'gemini_generate_content';
    const text = fixtureText(`${anthropic ? 'anthropic-messages' : 'gemini'}/${name}.sse`);
    // anthropic-late: the error event comes a moment after the rest, as a real mid-stream failure does.
    const at = text.indexOf('event: error');
    const upstream = kind === 'anthropic-late' ? chunkedResponse([text.slice(0, at), text.slice(at)], {}, 30) : chunkedResponse(chunks(text));
    return new Response(convertStream(upstream.body!, from, 'gemini_generate_content'), { headers: sse });
  });
  ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
});

afterAll(async () => {
  await server.close();
});

const ask = (model: string) =>
  ai.models.generateContent({
    model,
    contents: 'What is the capital of France?',
    config: {
      temperature: 0,
      maxOutputTokens: 256,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
      tools: [
        {
          functionDeclarations: [
            { name: 'get_capital', description: 'Capital of a country', parametersJsonSchema: { type: 'object', properties: { country: { type: 'string' } } } },
          ],
        },
      ],
    },
  });

async function collect(model: string) {
  const stream = await ai.models.generateContentStream({ model, contents: 'Hello' });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('@google/genai models.generateContent reads re-encoded Gemini responses', () => {
  it('text, usage with cached content', async () => {
    const response = await ask('fixture~response-cached-content');
    expect(response.text).toBe('Paris.');
    expect(response.responseId).toBe('_VQYaqvRGbW6qtsPg4TDoAg');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 3520,
      cachedContentTokenCount: 3512,
      candidatesTokenCount: 2,
      thoughtsTokenCount: 42,
      totalTokenCount: 3564,
    });
    const sent = JSON.parse(server.requests.at(-1)!.body);
    expect(server.requests.at(-1)!.headers['x-goog-api-key']).toBe('test-key');
    expect(sent.generationConfig).toMatchObject({ temperature: 0, maxOutputTokens: 256, thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } });
    // The SDK's own request decodes completely: model from the path, nothing unclassified.
    expect(lastDecoded!.unclassified).toEqual([]);
    expect(lastDecoded!.request).toMatchObject({
      model: 'fixture~response-cached-content',
      stream: false,
      maxTokens: 256,
      temperature: 0,
      reasoning: { enabled: true, budgetTokens: 1024, includeThoughts: true },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }],
      tools: [{ type: 'function', name: 'get_capital', parameters: { type: 'object', properties: { country: { type: 'string' } } } }],
    });
  });

  it('parallel function calls, the first with its thought signature', async () => {
    const response = await ask('fixture~response-parallel-function-calls');
    expect(response.functionCalls).toEqual([
      { name: 'generate_topic', args: {} },
      { name: 'generate_topic', args: {} },
      { name: 'generate_topic', args: {} },
    ]);
    const original = fixtureJson<any>('gemini/response-parallel-function-calls.json');
    expect(response.candidates![0]!.content!.parts![0]!.thoughtSignature).toBe(original.candidates[0].content.parts[0].thoughtSignature);
    expect(response.candidates![0]!.finishReason).toBe('STOP');
  });

  it('thought parts and the answer', async () => {
    const response = await ask('fixture~response-thinking-parts');
    const parts = response.candidates![0]!.content!.parts!;
    expect(parts[0]).toMatchObject({ thought: true });
    expect(response.text).toMatch(/^Crossing the street safely/);
    expect(parts[1]!.thoughtSignature).toMatch(/^EqoeCqce/);
    expect(response.usageMetadata?.thoughtsTokenCount).toBe(1001);
  });

  it('a blocked prompt and a MAX_TOKENS finish', async () => {
    const blocked = await ask('fixture~response-prompt-blocked');
    expect(blocked.candidates).toBeUndefined();
    expect(blocked.promptFeedback).toMatchObject({ blockReason: 'MODEL_ARMOR' });
    const max = await ask('fixture~response-finish-max-tokens');
    expect(max.text).toBe('The capital of France is');
    expect(max.candidates![0]!.finishReason).toBe('MAX_TOKENS');
  });

  it("errors rendered by the codec are ApiErrors with Google's status", async () => {
    const error = await ask('error~rate').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).message).toContain('RESOURCE_EXHAUSTED');
    const quota = await ask('error~quota').catch((e: unknown) => e);
    expect((quota as ApiError).message).toContain('budget');
  });
});

describe('@google/genai models.generateContentStream reads converted streams', () => {
  it('stream-text: text and live usage', async () => {
    const chunks = await collect('fixture~stream-text');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(Array.from({ length: 30 }, (_, i) => i + 1).join('\n'));
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 18, candidatesTokenCount: 80, thoughtsTokenCount: 35, totalTokenCount: 133 });
  });

  it('stream-thought-parts: thoughts, then an answer whose first part carries the signature', async () => {
    const chunks = await collect('fixture~stream-thought-parts');
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    expect(
      parts
        .filter((p) => p.thought === true)
        .map((p) => p.text)
        .join(''),
    ).toMatch(/^\*\*Clarifying User Goals\*\*/);
    const firstAnswer = parts.find((p) => p.thought !== true && p.text !== undefined && p.text.length > 0)!;
    expect(firstAnswer.text).toMatch(/^This is a great ques/);
    expect(firstAnswer.thoughtSignature).toMatch(/^CiIB0e2Kb6Syj1a961Ef/);
  });

  it('stream-function-call-thought-signature: the call and its signature', async () => {
    const chunks = await collect('fixture~stream-function-call-thought-signature');
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([{ name: 'get_country', args: {} }]);
    const part = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).find((p) => p.functionCall !== undefined)!;
    expect(part.thoughtSignature).toMatch(/^EpwICpkIAXLI2nxlU6gs/);
  });

  it('an Anthropic stream (text then tool use) converted to Gemini', async () => {
    const chunks = await collect('anthropic~stream-text-then-tool-use-input-json-delta');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe("I'll check the current weather in Paris for you.");
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }]);
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 377, candidatesTokenCount: 65, totalTokenCount: 442 });
  });

  it('an Anthropic thinking stream: thoughts without the Anthropic signature', async () => {
    const chunks = await collect('anthropic~stream-thinking');
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    expect(parts.some((p) => p.thought === true)).toBe(true);
    expect(parts.every((p) => p.thoughtSignature === undefined)).toBe(true);
    expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBe(133);
  });

  it('the Anthropic mid-stream overload ends the Gemini stream as Google does, and the SDK throws it', async () => {
    const stream = await ai.models.generateContentStream({ model: 'anthropic~stream-error-overloaded-midstream', contents: 'Hello' });
    const chunks: GenerateContentResponse[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) chunks.push(chunk);
    })().then(
      () => null,
      (e: unknown) => e,
    );
    // The text before the failure arrived, and no chunk claims the answer finished.
    expect(chunks.map((c) => c.text ?? '').join('')).not.toBe('');
    expect(chunks.some((c) => c.candidates?.[0]?.finishReason !== undefined)).toBe(false);
    // A bare error body read on its own is an ApiError with its status; read together with the
    // chunks before it, @google/genai reports the unterminated JSON at the end. Either way it throws.
    expect(failure).toBeInstanceOf(Error);
    if (failure instanceof ApiError) expect(failure.status).toBe(503);
    else expect((failure as Error).message).toMatch(/Incomplete JSON segment/);
    const raw = await fetch(`${server.url}/v1beta/models/anthropic~stream-error-overloaded-midstream:streamGenerateContent?alt=sse`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    }).then((r) => r.text());
    const tail = raw.slice(raw.lastIndexOf('\r\n\r\n') + 4);
    expect(tail.endsWith('}\n')).toBe(true);
    expect(JSON.parse(tail)).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
  });

  it("an upstream failure that comes after the text reaches the caller as an ApiError with Google's status", async () => {
    const stream = await ai.models.generateContentStream({ model: 'anthropic-late~stream-error-overloaded-midstream', contents: 'Hello' });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.text ?? '';
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(text).not.toBe('');
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect((failure as ApiError).message).toContain('UNAVAILABLE');
  });
});
