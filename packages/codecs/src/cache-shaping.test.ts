import { describe, expect, it } from 'vitest';
import { MAX_CACHE_BREAKPOINTS, shapePromptCache } from './cache-shaping.js';
import type { Request } from './ir/request.js';

const base = (): Request => ({
  system: [{ type: 'text', text: 'You are terse.' }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'first' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'latest' }] },
  ],
  tools: [
    { type: 'function', name: 'a', parameters: { type: 'object' } },
    { type: 'function', name: 'b', parameters: { type: 'object' } },
  ],
  stream: false,
});

function breakpoints(r: Request): string[] {
  const out: string[] = [];
  r.tools.forEach((t, i) => t.cacheControl && out.push(`tools[${i}]`));
  r.system.forEach((s, i) => s.cacheControl && out.push(`system[${i}]`));
  r.messages.forEach((m, i) => m.content.forEach((p, j) => 'cacheControl' in p && p.cacheControl && out.push(`messages[${i}][${j}]`)));
  return out;
}

describe('prompt-cache shaping', () => {
  it('adds breakpoints after the last tool, the system prompt and the latest message', () => {
    const { request, added } = shapePromptCache(base());
    expect(added).toBe(3);
    expect(breakpoints(request)).toEqual(['tools[1]', 'system[0]', 'messages[2][0]']);
    expect(request.tools[1]!.cacheControl).toEqual({ type: 'ephemeral' });
  });

  it('uses the 1-hour TTL when asked', () => {
    const { request } = shapePromptCache(base(), { ttl: '1h' });
    expect(request.system[0]!.cacheControl).toEqual({ type: 'ephemeral', ttl: '1h' });
  });

  it('never removes the client’s own breakpoints and never exceeds four', () => {
    const r = base();
    r.messages[0]!.content[0] = { type: 'text', text: 'first', cacheControl: { type: 'ephemeral', ttl: '1h' } };
    r.messages[1]!.content[0] = { type: 'text', text: 'ok', cacheControl: { type: 'ephemeral' } };
    r.tools[0]!.cacheControl = { type: 'ephemeral' };
    const { request, added } = shapePromptCache(r);
    expect(added).toBe(1);
    const marks = breakpoints(request);
    expect(marks).toHaveLength(MAX_CACHE_BREAKPOINTS);
    expect(marks).toContain('messages[0][0]');
    expect(marks).toContain('messages[1][0]');
    expect(marks).toContain('tools[0]');
    expect(request.messages[0]!.content[0]).toEqual({ type: 'text', text: 'first', cacheControl: { type: 'ephemeral', ttl: '1h' } });
  });

  it('leaves the input untouched and returns it as is when nothing is added', () => {
    const r = base();
    const before = JSON.stringify(r);
    shapePromptCache(r);
    expect(JSON.stringify(r)).toBe(before);
    const empty: Request = { system: [], messages: [], tools: [], stream: false };
    expect(shapePromptCache(empty).request).toBe(empty);
  });
});
