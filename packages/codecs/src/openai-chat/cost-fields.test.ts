import { describe, expect, it } from 'vitest';
import { costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';

const cost = (extra: Record<string, unknown>) => costFields(decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }).request);

describe('OpenAI Chat cost-bearing fields', () => {
  it('multiplies the output by n (a number or a numeric string) and refuses any other n', () => {
    expect(cost({}).outputMultiplier).toBe(1);
    expect(cost({ n: 4 }).outputMultiplier).toBe(4);
    expect(cost({ n: '3' }).outputMultiplier).toBe(3);
    expect(cost({ n: 2.5 }).unbounded.map((f) => f.field)).toEqual(['n']);
    expect(cost({ n: 0 }).unbounded.map((f) => f.field)).toEqual(['n']);
  });

  it('counts a prediction’s bytes as output the upstream may bill beyond max_completion_tokens', () => {
    expect(cost({ prediction: { type: 'content', content: 'é'.repeat(10) } }).extraOutputTokens).toBeGreaterThanOrEqual(20);
  });

  it('names audio output, web search and priority processing as unbounded', () => {
    expect(cost({ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }).unbounded.map((f) => f.field)).toEqual(['modalities']);
    expect(cost({ web_search_options: {} }).unbounded.map((f) => f.field)).toEqual(['web_search_options']);
    expect(cost({ service_tier: 'priority' }).unbounded.map((f) => f.field)).toEqual(['service_tier']);
    expect(cost({ service_tier: 'flex', modalities: ['text'], logprobs: true }).unbounded).toEqual([]);
  });
});

describe('OpenAI Chat output bound', () => {
  it('takes the larger of max_tokens and max_completion_tokens when both are given', () => {
    const decode = (extra: Record<string, unknown>) => decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }).request.maxTokens;
    expect(decode({ max_completion_tokens: 10, max_tokens: 500 })).toBe(500);
    expect(decode({ max_completion_tokens: 700, max_tokens: 5 })).toBe(700);
    expect(decode({ max_tokens: 5 })).toBe(5);
  });
});
