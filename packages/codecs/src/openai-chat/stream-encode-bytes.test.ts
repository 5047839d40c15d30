/**
 * The Chat stream encoder writes each chunk from text templates instead of stringifying an
 * object per chunk. Whatever the strings in the events, every data line must be exactly what
 * `JSON.stringify` writes for the chunk it stands for, with the keys in the order OpenAI sends
 * them: hostile text (quotes, backslashes, control characters, U+2028, lone surrogates, emoji)
 * over random event sequences.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../ir/stream-event.js';
import { emptyUsage } from '../ir/usage.js';
import { encodeEvents } from './__tests__/harness.js';

const PIECES = [
  'a',
  'Hello',
  ' ',
  '"',
  '\\',
  '\\"',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '😀',
  '\ud800',
  '\udfff',
  'é',
  '</script>',
  '{"x":1}',
  'data: [DONE]\n\n',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function text(r: () => number): string {
  let out = '';
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) out += PIECES[Math.floor(r() * PIECES.length)]!;
  return out;
}

function events(r: () => number): StreamEvent[] {
  const out: StreamEvent[] = [{ type: 'message_start', id: `msg_${text(r)}`, model: text(r), created: Math.floor(r() * 2e9) }];
  const blocks = 1 + Math.floor(r() * 4);
  for (let index = 0; index < blocks; index++) {
    const kind = Math.floor(r() * 4);
    if (kind === 0) out.push({ type: 'block_start', index, block: { kind: 'text' } });
    else if (kind === 1) out.push({ type: 'block_start', index, block: { kind: 'refusal' } });
    else if (kind === 2) out.push({ type: 'block_start', index, block: { kind: 'reasoning' } });
    else out.push({ type: 'block_start', index, block: { kind: 'tool_call', id: `toolu_${text(r)}`, name: text(r) } });
    const deltas = Math.floor(r() * 4);
    for (let d = 0; d < deltas; d++) {
      if (kind === 2) out.push({ type: 'reasoning_delta', index, text: text(r) });
      else if (kind === 3) out.push({ type: 'tool_args_delta', index, delta: text(r) });
      else out.push({ type: 'text_delta', index, text: text(r) });
    }
    out.push({ type: 'block_stop', index });
  }
  if (r() < 0.7) out.push({ type: 'usage', usage: { ...emptyUsage(), input: Math.floor(r() * 1000), output: Math.floor(r() * 1000) } });
  if (r() < 0.7) out.push({ type: 'finish', finishReason: { unified: r() < 0.5 ? 'stop' : 'length', raw: 'end_turn' } });
  out.push({ type: 'message_stop' });
  return out;
}

const ENVELOPE = ['id', 'object', 'created', 'model', 'choices'];

describe('openai_chat stream encoder: chunk bytes', () => {
  it('writes every chunk as JSON.stringify would, keys in OpenAI order, over 2,000 random streams', () => {
    const r = rng(20261202);
    let chunks = 0;
    for (let i = 0; i < 2000; i++) {
      const sse = encodeEvents(events(r), r() < 0.5 ? { model: text(r) } : {});
      const lines = sse.split('\n\n').filter((l) => l !== '');
      expect(lines.at(-1)).toBe('data: [DONE]');
      for (const line of lines.slice(0, -1)) {
        expect(line.startsWith('data: ')).toBe(true);
        const data = line.slice('data: '.length);
        const parsed = JSON.parse(data) as Record<string, unknown>;
        expect(data).toBe(JSON.stringify(parsed));
        expect(Object.keys(parsed)).toEqual('usage' in parsed ? [...ENVELOPE, 'usage'] : ENVELOPE);
        const choices = parsed.choices as Array<Record<string, unknown>>;
        for (const c of choices) expect(Object.keys(c)).toEqual(['index', 'delta', 'finish_reason']);
        chunks++;
      }
    }
    expect(chunks).toBeGreaterThan(8000);
  });
});
