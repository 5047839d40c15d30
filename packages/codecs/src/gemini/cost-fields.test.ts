import { describe, expect, it } from 'vitest';
import { costFields } from './cost-fields.js';
import { decodeRequest } from './decode-request.js';

const cost = (extra: Record<string, unknown>) => costFields(decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra }, { model: 'gemini' }).request);

describe('Gemini cost-bearing fields', () => {
  it('multiplies the output by candidateCount, in either spelling', () => {
    expect(cost({ generationConfig: { candidateCount: 3 } }).outputMultiplier).toBe(3);
    expect(cost({ generation_config: { candidate_count: 2 } }).outputMultiplier).toBe(2);
    expect(cost({ generationConfig: { candidateCount: -1 } }).unbounded.map((f) => f.field)).toEqual(['generationConfig.candidateCount']);
  });

  it('reports cached content, built-in tools and image or audio output', () => {
    expect(cost({ cachedContent: 'cachedContents/abc' }).unsizedInput.map((f) => f.field)).toEqual(['cachedContent']);
    expect(cost({ tools: [{ googleSearch: {} }, { codeExecution: {} }, { functionDeclarations: [{ name: 'f' }] }] }).unbounded.map((f) => f.field)).toEqual(['tools.googleSearch', 'tools.codeExecution']);
    expect(cost({ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }).unbounded.map((f) => f.field)).toEqual(['generationConfig.responseModalities']);
    expect(cost({ generationConfig: { temperature: 0.2 } })).toMatchObject({ outputMultiplier: 1, unbounded: [], unsizedInput: [] });
  });
});
