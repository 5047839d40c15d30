import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CacheControl } from '../ir/cache-control.js';
import type { ToolResultPart, UserContentPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { Request } from '../ir/request.js';
import type { Response } from '../ir/response.js';
import { anthropicMessagesCodec as codec } from './index.js';

/** IR values in the canonical form an Anthropic wire body decodes to. */
const word = fc.string({ minLength: 1, maxLength: 8 });
const cache: fc.Arbitrary<{ cacheControl?: CacheControl }> = fc.oneof(
  fc.constant({}),
  fc.constant({ cacheControl: { type: 'ephemeral' as const } }),
  fc.constant({ cacheControl: { type: 'ephemeral' as const, ttl: '1h' as const } }),
);
const text = fc.tuple(word, cache).map(([t, c]) => ({ type: 'text' as const, text: t, ...c }));
const jsonArgs = fc
  .dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean(), fc.constant(null)))
  .map((o) => JSON.stringify(o));
const toolCall = fc
  .tuple(word, word, jsonArgs, cache)
  .map(([id, name, args, c]) => ({ type: 'tool_call' as const, id: `toolu_${id}`, name, arguments: args, ...c }));
const thinking = fc.tuple(fc.string({ maxLength: 10 }), fc.base64String({ minLength: 4, maxLength: 40 })).map(([t, s]) => ({
  type: 'reasoning' as const,
  text: t,
  signature: s,
  issuer: 'anthropic' as const,
}));
const redacted = fc
  .base64String({ minLength: 4, maxLength: 40 })
  .map((d) => ({ type: 'reasoning' as const, text: '', redactedData: d, issuer: 'anthropic' as const }));
const image = fc.tuple(fc.base64String({ minLength: 4, maxLength: 20 }), cache).map(([d, c]) => ({
  type: 'image' as const,
  source: { kind: 'base64' as const, mediaType: 'image/png', data: d },
  ...c,
}));
const toolResult: fc.Arbitrary<ToolResultPart> = fc
  .tuple(word, fc.array(fc.oneof(text, image), { maxLength: 2 }), fc.option(fc.boolean(), { nil: undefined }), cache)
  .map(([id, content, isError, c]) => ({
    type: 'tool_result' as const,
    toolCallId: `toolu_${id}`,
    content,
    ...(isError === undefined ? {} : { isError }),
    ...c,
  }));

const userSide: fc.Arbitrary<Message[]> = fc
  .tuple(fc.array(toolResult, { maxLength: 2 }), fc.array(fc.oneof(text, image), { maxLength: 3 }))
  .filter(([r, u]) => r.length + u.length > 0)
  .map(([results, user]) => [
    ...(results.length > 0 ? [{ role: 'tool' as const, content: results }] : []),
    ...(user.length > 0 ? [{ role: 'user' as const, content: user as UserContentPart[] }] : []),
  ]);
const assistant: fc.Arbitrary<Message[]> = fc
  .array(fc.oneof(text, toolCall, thinking, redacted), { minLength: 1, maxLength: 4 })
  .map((content) => [{ role: 'assistant' as const, content: content }]);

const request: fc.Arbitrary<Request> = fc
  .record({
    turns: fc.array(fc.tuple(userSide, assistant), { minLength: 1, maxLength: 3 }),
    system: fc.array(text, { maxLength: 2 }),
    maxTokens: fc.integer({ min: 1, max: 100000 }),
    temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    topK: fc.option(fc.nat(100), { nil: undefined }),
    stop: fc.option(fc.array(word, { minLength: 1, maxLength: 2 }), { nil: undefined }),
    user: fc.option(word, { nil: undefined }),
    stream: fc.boolean(),
    budget: fc.option(fc.integer({ min: 1024, max: 4096 }), { nil: undefined }),
    tools: fc.array(
      fc.tuple(word, cache).map(([n, c]) => ({ type: 'function' as const, name: n, description: 'd', parameters: { type: 'object' }, ...c })),
      { maxLength: 2 },
    ),
  })
  .map((r) => {
    const out: Request = {
      model: 'claude-x',
      system: r.system,
      messages: r.turns.flatMap(([u, a]) => [...u, ...a]),
      tools: r.tools,
      maxTokens: r.maxTokens,
      stream: r.stream,
      vendor: { format: 'anthropic_messages', fields: {} },
    };
    if (r.temperature !== undefined) out.temperature = r.temperature;
    if (r.topK !== undefined) out.topK = r.topK;
    if (r.stop !== undefined) out.stopSequences = r.stop;
    if (r.user !== undefined) out.user = r.user;
    if (r.budget !== undefined) out.reasoning = { enabled: true, budgetTokens: r.budget };
    if (r.tools.length > 0) out.toolChoice = { type: 'auto' };
    return out;
  });

describe('anthropic_messages IR round trips (IR → wire → IR)', () => {
  it('requests come back unchanged, without warnings', () => {
    fc.assert(
      fc.property(request, (ir) => {
        const encoded = codec.encodeRequest(ir);
        expect(encoded.warnings).toEqual([]);
        const decoded = codec.decodeRequest(JSON.parse(JSON.stringify(encoded.body)));
        expect(decoded.warnings).toEqual([]);
        expect(decoded.request).toEqual(ir);
      }),
      { numRuns: 300 },
    );
  });

  it('responses come back unchanged, without warnings', () => {
    const response: fc.Arbitrary<Response> = fc
      .record({
        content: fc.array(fc.oneof(text, toolCall, thinking, redacted), { maxLength: 4 }),
        reason: fc.constantFrom('end_turn', 'max_tokens', 'stop_sequence', 'refusal', 'pause_turn', 'model_context_window_exceeded'),
        usage: fc.record({ input: fc.nat(), output: fc.nat(), cacheRead: fc.nat(), cacheWrite: fc.nat(), cacheWrite1h: fc.nat() }),
      })
      .map(({ content, reason, usage }) => {
        const hasTools = content.some((p) => p.type === 'tool_call');
        const raw = hasTools && reason === 'end_turn' ? 'tool_use' : reason;
        const unified = {
          end_turn: 'stop',
          tool_use: 'tool_calls',
          max_tokens: 'length',
          stop_sequence: 'stop_sequence',
          refusal: 'content_filter',
          pause_turn: 'pause',
          model_context_window_exceeded: 'length',
        }[raw] as Response['finishReason']['unified'];
        return {
          id: 'msg_1',
          model: 'claude-x',
          content: content,
          finishReason: { unified, raw },
          stopSequence: raw === 'stop_sequence' ? '##' : null,
          usage: { ...usage, reasoning: 0, measured: true },
        };
      });
    fc.assert(
      fc.property(response, (ir) => {
        const encoded = codec.encodeResponse(ir);
        expect(encoded.warnings).toEqual([]);
        const decoded = codec.decodeResponse(JSON.parse(JSON.stringify(encoded.body)));
        expect(decoded.warnings).toEqual([]);
        expect(decoded.response).toEqual(ir);
      }),
      { numRuns: 300 },
    );
  });
});
