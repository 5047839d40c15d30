import { describe, expect, it } from 'vitest';
import { fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { decodeChunks, decodeText } from './__tests__/harness.js';

const text = (events: StreamEvent[], type: 'text_delta' | 'reasoning_delta') => events.map((e) => (e.type === type ? e.text : '')).join('');

describe('gemini_generate_content stream decoding (fixtures)', () => {
  it("the fixtures use Google's framing: data lines only, CRLF CRLF separators", () => {
    for (const file of ['stream-text.sse', 'stream-thought-parts.sse', 'stream-function-call-thought-signature.sse']) {
      const raw = fixtureText(`gemini/${file}`);
      expect(raw).toContain('\r\n\r\n');
      expect(raw).not.toMatch(/^event:/m);
    }
  });

  it('stream-text: one text block, cumulative usage snapshots, STOP, then message_stop at the end of input', () => {
    const events = decodeText(fixtureText('gemini/stream-text.sse'));
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'usage',
      'block_start',
      'text_delta',
      'usage',
      'text_delta',
      'usage',
      'text_delta',
      'block_stop',
      'finish',
      'message_stop',
    ]);
    expect(events[0]).toEqual({ type: 'message_start', id: 'ru1garvBEoOiqtsP2fznmQw', model: 'gemini-2.5-flash' });
    expect(text(events, 'text_delta')).toBe(Array.from({ length: 30 }, (_, i) => i + 1).join('\n'));
    const usages = events.filter((e) => e.type === 'usage').map((e) => (e.type === 'usage' ? e.usage : null));
    expect(usages.map((u) => [u!.input, u!.output, u!.reasoning])).toEqual([
      [18, 66, 35],
      [18, 114, 35],
      [18, 115, 35],
    ]);
    expect(events.find((e) => e.type === 'finish')).toEqual({ type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' } });
  });

  it("stream-thought-parts: thought parts → one reasoning block; the signature lands on the answer's text block", () => {
    const events = decodeText(fixtureText('gemini/stream-thought-parts.sse'));
    const starts = events.filter((e) => e.type === 'block_start');
    expect(starts).toEqual([
      { type: 'block_start', index: 0, block: { kind: 'reasoning', issuer: 'google' } },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
    ]);
    expect(text(events, 'reasoning_delta')).toMatch(/^\*\*Clarifying User Goals\*\*[\s\S]*regardless of specific circumstances or locations\.\n\n\n$/);
    expect(text(events, 'text_delta')).toMatch(/^This is a great ques/);
    const signature = events.find((e) => e.type === 'signature');
    expect(signature).toMatchObject({ type: 'signature', index: 1, issuer: 'google', signature: expect.stringMatching(/^CiIB0e2Kb6Syj1a961Ef/) });
    // The signature comes before the text of its part, so an encoder can put it back on that part.
    const at = events.indexOf(signature!);
    expect(events[at + 1]).toMatchObject({ type: 'text_delta', index: 1 });
    expect(events.filter((e) => e.type === 'usage').at(-1)).toMatchObject({ usage: { input: 34, output: 469 + 787, reasoning: 787 } });
    expect(events.slice(-3).map((e) => e.type)).toEqual(['block_stop', 'finish', 'message_stop']);
  });

  it('stream-function-call-thought-signature: one whole call with its signature; STOP means tool_calls', () => {
    const raw = fixtureText('gemini/stream-function-call-thought-signature.sse');
    const signature = /"thoughtSignature": "([^"]+)"/.exec(raw)![1]!;
    const events = decodeText(raw);
    expect(events).toEqual([
      { type: 'message_start', id: 'QUVVadTSNJ6_qtsPvN7J8Q0', model: 'gemini-3-pro-preview' },
      { type: 'usage', usage: { input: 29, output: 212, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 202, measured: true } },
      {
        type: 'block_start',
        index: 0,
        block: { kind: 'tool_call', id: 'gcall_QUVVadTSNJ6-qtsPvN7J8Q0_0', name: 'get_country', thoughtSignature: signature },
      },
      { type: 'signature', index: 0, signature, issuer: 'google' },
      { type: 'tool_args_delta', index: 0, delta: '{}' },
      { type: 'block_stop', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'STOP' } },
      { type: 'message_stop' },
    ]);
  });
});

describe('gemini_generate_content stream decoding (shapes)', () => {
  const chunk = (body: object) => `data: ${JSON.stringify(body)}\r\n\r\n`;
  const c = (parts: object[], extra: object = {}) =>
    chunk({ candidates: [{ content: { parts, role: 'model' }, ...extra }], responseId: 'r', modelVersion: 'm' });

  it('parallel calls with ids, then text: each call is its own block', () => {
    const events = decodeText(
      c([{ functionCall: { id: 'a1', name: 'f', args: { x: 1 } } }, { functionCall: { id: 'a2', name: 'g', args: {} } }]) +
        c([{ text: 'done' }], { finishReason: 'STOP' }),
    );
    expect(events.filter((e) => e.type === 'block_start').map((e) => e.type === 'block_start' && e.block)).toEqual([
      { kind: 'tool_call', id: 'a1', name: 'f' },
      { kind: 'tool_call', id: 'a2', name: 'g' },
      { kind: 'text' },
    ]);
    expect(events.filter((e) => e.type === 'tool_args_delta')).toEqual([
      { type: 'tool_args_delta', index: 0, delta: '{"x":1}' },
      { type: 'tool_args_delta', index: 1, delta: '{}' },
    ]);
    expect(events.find((e) => e.type === 'finish')).toMatchObject({ finishReason: { unified: 'tool_calls', raw: 'STOP' } });
  });

  it('MAX_TOKENS and SAFETY finishes; cached content tokens leave input', () => {
    const max = decodeText(c([{ text: 'The capital of' }], { finishReason: 'MAX_TOKENS' }));
    expect(max.find((e) => e.type === 'finish')).toMatchObject({ finishReason: { unified: 'length', raw: 'MAX_TOKENS' } });
    const safety = decodeText(c([], { finishReason: 'SAFETY' }));
    expect(safety.map((e) => e.type)).toEqual(['message_start', 'finish', 'message_stop']);
    expect(safety[1]).toMatchObject({ finishReason: { unified: 'content_filter', raw: 'SAFETY' } });
    const cached = decodeText(
      chunk({
        candidates: [{ content: { parts: [{ text: 'Paris.' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 3520, cachedContentTokenCount: 3512, candidatesTokenCount: 2, thoughtsTokenCount: 42, toolUsePromptTokenCount: 5 },
      }),
    );
    expect(cached.find((e) => e.type === 'usage')).toMatchObject({ usage: { input: 13, cacheRead: 3512, output: 44, reasoning: 42 } });
  });

  it('a blocked prompt in a stream becomes a refusal block and content_filter', () => {
    const events = decodeText(
      chunk({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, responseId: 'r' }),
    );
    expect(events).toEqual([
      { type: 'message_start', id: 'r', model: '' },
      { type: 'usage', usage: expect.objectContaining({ input: 7, output: 0 }) },
      { type: 'block_start', index: 0, block: { kind: 'refusal' } },
      { type: 'text_delta', index: 0, text: 'The prompt was blocked (PROHIBITED_CONTENT).' },
      { type: 'block_stop', index: 0 },
      { type: 'finish', finishReason: { unified: 'content_filter', raw: 'PROHIBITED_CONTENT' } },
      { type: 'message_stop' },
    ]);
  });

  it('an in-stream error chunk is the canonical error; nothing follows it', () => {
    const events = decodeText(
      c([{ text: 'hi' }]) + chunk({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }) + c([{ text: 'more' }]),
    );
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'unavailable', message: 'The model is overloaded.', status: 503 } });
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(1);
  });

  it('a bare, pretty-printed error body after the events (how Google ends a failed stream) is the canonical error, however the bytes are split', () => {
    const bare = `${JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }, null, 2)}\n`;
    const whole = c([{ text: 'hi' }]) + bare;
    const expected = { type: 'error', error: { code: 'rate_limited', message: 'Resource has been exhausted (e.g. check quota).', status: 429 } };
    expect(decodeText(whole).at(-1)).toEqual(expected);
    const bytes = new TextEncoder().encode(whole);
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = decodeChunks([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events.at(-1)).toEqual(expected);
      expect(events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''))).toEqual(['hi']);
    }
    // On one line, and without a final newline, it is the same error.
    expect(decodeText(c([{ text: 'hi' }]) + JSON.stringify({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } })).at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'unavailable', status: 503 },
    });
  });

  it('stray lines that are not a JSON error body are ignored, as SSE says', () => {
    const events = decodeText(`garbage line\r\n[1, 2]\r\n{"candidates": []}\r\n{oops\r\n${c([{ text: 'hi' }])}`);
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(1);
    expect(events.some((e) => e.type === 'error' && e.error.message.includes('garbage'))).toBe(false);
    // A stray object that never closes is dropped at the next event: a later error body still counts.
    const later = decodeText(`${c([{ text: 'hi' }])}{oops\r\n${c([{ text: 'more' }])}{"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}\n`);
    expect(later.at(-1)).toMatchObject({ type: 'error', error: { status: 500, message: 'boom' } });
  });

  it('a long stray object is dropped once it passes 64 KiB, and nothing after it is lost', () => {
    const stray = `{"a": [{}\n${',{}\n'.repeat(30_000)}`;
    const events = decodeText(`${c([{ text: 'hi' }])}${stray}${c([{ text: 'more' }])}`);
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''))).toEqual(['hi', 'more']);
  });

  it('LF framing (other proxies) decodes the same as CRLF', () => {
    const crlf = fixtureText('gemini/stream-text.sse');
    expect(decodeText(crlf.replace(/\r\n/g, '\n'))).toEqual(decodeText(crlf));
  });

  it('a usage-only chunk after the finish still updates usage; parts after it are ignored', () => {
    const events = decodeText(
      c([{ text: 'a' }], { finishReason: 'STOP' }) + chunk({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 } }) + c([{ text: 'late' }]),
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'block_start', 'text_delta', 'block_stop', 'finish', 'usage', 'message_stop']);
  });
});
