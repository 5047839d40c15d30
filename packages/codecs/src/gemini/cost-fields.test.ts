import { describe, expect, it } from 'vitest';
import { costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';

const cost = (extra: Record<string, unknown>) =>
  costFields(decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra }, { model: 'gemini' }).request);

describe('Gemini cost-bearing fields', () => {
  it('multiplies the output by candidateCount, in either spelling', () => {
    expect(cost({ generationConfig: { candidateCount: 3 } }).outputMultiplier).toBe(3);
    expect(cost({ generation_config: { candidate_count: 2 } }).outputMultiplier).toBe(2);
    expect(cost({ generationConfig: { candidateCount: -1 } }).unbounded.map((f) => f.field)).toEqual(['generationConfig.candidateCount']);
  });

  it('reports cached content, built-in tools and image or audio output', () => {
    expect(cost({ cachedContent: 'cachedContents/abc' }).unsizedInput.map((f) => f.field)).toEqual(['cachedContent']);
    expect(cost({ tools: [{ googleSearch: {} }, { codeExecution: {} }, { functionDeclarations: [{ name: 'f' }] }] }).unbounded.map((f) => f.field)).toEqual([
      'tools.googleSearch',
      'tools.codeExecution',
    ]);
    expect(cost({ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }).unbounded.map((f) => f.field)).toEqual([
      'generationConfig.responseModalities',
    ]);
    expect(cost({ generationConfig: { temperature: 0.2 } })).toMatchObject({ outputMultiplier: 1, unbounded: [], unsizedInput: [] });
  });
});

describe('Gemini fields spelled both ways', () => {
  it('refuses a request object that gives one field as camelCase and snake_case', () => {
    const decode = (body: Record<string, unknown>) => () => decodeRequest({ contents: [{ parts: [{ text: 'hi' }] }], ...body }, { model: 'g' });
    expect(decode({ generationConfig: { maxOutputTokens: 1, max_output_tokens: 9 } })).toThrow(
      /generationConfig\.max_output_tokens: is the same field as maxOutputTokens/,
    );
    expect(decode({ generationConfig: { maxOutputTokens: 1 }, generation_config: { maxOutputTokens: 9 } })).toThrow(/generation_config/);
    expect(decode({ generationConfig: { thinkingConfig: { thinking_budget: 9, thinkingBudget: 1 } } })).toThrow(/thinkingConfig\.thinkingBudget/);
    expect(decode({ generation_config: { max_output_tokens: 9 } })().request.maxTokens).toBe(9);
  });
});
